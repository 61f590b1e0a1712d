// Package epoch holds the one clock grid shared by convofake (a fixed
// window limit's windows) and the SDK (the adaptive limiter's probes, which
// look for those windows' turns): instants that are whole multiples of a
// duration counted from the Unix epoch.
package epoch

import "time"

// AlignDown is the latest instant not after t that is a whole multiple of d
// since the Unix epoch, before the epoch too (time.Time.Truncate counts from
// year 1 instead, which differs for a d that does not divide a day). d must
// be positive.
func AlignDown(t time.Time, d time.Duration) time.Time {
	r := time.Duration(t.UnixNano() % int64(d))
	if r < 0 {
		r += d
	}
	return t.Add(-r)
}
