package main

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
)

type clockJSON struct {
	Now    string `json:"now"`
	Frozen bool   `json:"frozen"`
}

func (a *admin) clockState() clockJSON {
	c := a.srv.Clock()
	return clockJSON{Now: formatTime(c.Now()), Frozen: c.Manual()}
}

func (a *admin) getClock(w http.ResponseWriter, _ *http.Request) error {
	writeJSON(w, http.StatusOK, a.clockState())
	return nil
}

// setClock: POST /_fake/clock with {"advance": "90m"} (Go duration, with an
// optional leading days part: "2d4h"; negative goes back) or {"set":
// "<RFC 3339>"}. Only a frozen clock moves: on a real clock both are 409
// clock_not_frozen.
func (a *admin) setClock(w http.ResponseWriter, r *http.Request) error {
	var body struct {
		Advance *string `json:"advance"`
		Set     *string `json:"set"`
	}
	if err := decodeBody(r, &body, false); err != nil {
		return err
	}
	if (body.Advance == nil) == (body.Set == nil) {
		return badRequest(`give exactly one of "advance" (e.g. "90m", "2d4h") or "set" (RFC 3339 time)`)
	}
	var d time.Duration
	var t time.Time
	var err error
	if body.Advance != nil {
		if d, err = parseDuration(*body.Advance); err != nil {
			return badRequest("advance: %v", err)
		}
	} else if t, err = time.Parse(time.RFC3339Nano, *body.Set); err != nil {
		return badRequest("set: %q is not an RFC 3339 date-time (e.g. 2026-11-22T10:00:00Z)", *body.Set)
	}
	clock := a.srv.Clock()
	if !clock.Manual() {
		return errorf(http.StatusConflict, "clock_not_frozen",
			"the clock is real and follows system time; start convofake with --clock=frozen:<RFC 3339 time> (or a seed with \"now\") to move it")
	}
	if body.Advance != nil {
		clock.Advance(d)
	} else {
		clock.Set(t)
	}
	writeJSON(w, http.StatusOK, a.clockState())
	return nil
}

// parseDuration reads a Go duration with an optional leading days part
// ("2d", "2d4h", "-1d"), as the seed's "ago" fields do.
func parseDuration(s string) (time.Duration, error) {
	neg := false
	rest := s
	if strings.HasPrefix(rest, "-") {
		neg, rest = true, rest[1:]
	}
	var days time.Duration
	if i := strings.IndexByte(rest, 'd'); i > 0 {
		n, err := strconv.Atoi(rest[:i])
		if err != nil || n < 0 {
			return 0, fmt.Errorf("%q is not a duration (e.g. 90m, 3h, 2d4h)", s)
		}
		days, rest = time.Duration(n)*24*time.Hour, rest[i+1:]
	}
	var d time.Duration
	if rest != "" {
		var err error
		if d, err = time.ParseDuration(rest); err != nil || strings.HasPrefix(rest, "-") {
			return 0, fmt.Errorf("%q is not a duration (e.g. 90m, 3h, 2d4h)", s)
		}
	} else if days == 0 {
		return 0, fmt.Errorf("%q is not a duration (e.g. 90m, 3h, 2d4h)", s)
	}
	if neg {
		return -(days + d), nil
	}
	return days + d, nil
}
