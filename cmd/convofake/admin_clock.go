package main

import (
	"net/http"
	"time"

	"github.com/convoapi/convo-go/fake"
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
		if d, err = fake.ParseDuration(*body.Advance); err != nil { // the seed's "ago" syntax
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
