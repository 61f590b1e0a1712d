package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"path"
	"strconv"
	"strings"
	"time"

	"github.com/convoapi/convo-go"
	"github.com/convoapi/convo-go/fake"
)

// maxFaultLatency bounds the latency of a fault rule: it is real time.
const maxFaultLatency = 10 * time.Minute

// jsonDuration is a duration in JSON: a Go duration string ("1.5s",
// "250ms") or a number of seconds; it is written as a Go duration string.
type jsonDuration time.Duration

func (d jsonDuration) MarshalJSON() ([]byte, error) {
	return json.Marshal(time.Duration(d).String())
}

func (d *jsonDuration) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err == nil {
		v, err := time.ParseDuration(s)
		if err != nil {
			return fmt.Errorf("%q is not a duration (e.g. \"30s\", \"250ms\")", s)
		}
		*d = jsonDuration(v)
		return nil
	}
	var secs float64
	if err := json.Unmarshal(b, &secs); err != nil {
		return fmt.Errorf("%s is neither a duration string nor a number of seconds", b)
	}
	*d = jsonDuration(time.Duration(secs * float64(time.Second)))
	return nil
}

// faultJSON is a fault rule (fake.Fault) in JSON.
type faultJSON struct {
	Method     string          `json:"method"`
	Path       string          `json:"path"`
	Status     int             `json:"status"`
	Code       string          `json:"code"`
	Message    string          `json:"message"`
	Details    json.RawMessage `json:"details"`
	RetryAfter jsonDuration    `json:"retry_after"`
	Latency    jsonDuration    `json:"latency"`
	Drop       bool            `json:"drop"`
	Times      int             `json:"times"`
}

// check refuses a rule that cannot be what its author meant.
func (fj *faultJSON) check() error {
	switch {
	case fj.Status != 0 && (fj.Status < 400 || fj.Status > 599):
		return badRequest("status: %d is not an error status (400–599), nor 0 for a latency or drop rule", fj.Status)
	case fj.Status == 0 && fj.Latency == 0 && !fj.Drop:
		return badRequest("a fault needs a status, a latency or drop: true")
	case fj.Times < 0:
		return badRequest("times: must be ≥ 0 (0: every matching request)")
	case fj.RetryAfter < 0:
		return badRequest("retry_after: must be ≥ 0")
	case fj.Latency < 0 || time.Duration(fj.Latency) > maxFaultLatency:
		return badRequest("latency: must be between 0 and %v", maxFaultLatency)
	case fj.Status == 0 && (fj.Code != "" || fj.Message != "" || len(fj.Details) > 0 || fj.RetryAfter != 0):
		return badRequest("code, message, details and retry_after need a status")
	}
	if _, err := path.Match(fj.Path, "/"); err != nil {
		return badRequest("path: %q is not a valid pattern: %s", fj.Path, patternHelp)
	}
	return nil
}

type faultIDJSON struct {
	ID int `json:"id"`
}

// addFault: POST /_fake/faults with a fault rule; 201 {"id": n}.
func (a *admin) addFault(w http.ResponseWriter, r *http.Request) error {
	var fj faultJSON
	if err := decodeBody(r, &fj, false); err != nil {
		return err
	}
	if err := fj.check(); err != nil {
		return err
	}
	f := fake.Fault{
		Method: strings.ToUpper(fj.Method), Path: fj.Path, Status: fj.Status, Code: convo.ErrorCode(fj.Code), Message: fj.Message,
		RetryAfter: time.Duration(fj.RetryAfter), Latency: time.Duration(fj.Latency), Drop: fj.Drop, Times: fj.Times,
	}
	if d := bytes.TrimSpace(fj.Details); len(d) > 0 && !bytes.Equal(d, []byte("null")) {
		f.Details = json.RawMessage(d)
	}
	writeJSON(w, http.StatusCreated, faultIDJSON{ID: a.srv.AddFault(f)})
	return nil
}

// faultOutJSON is an installed rule, as GET /_fake/faults lists it: its
// id, the rule's fields as POST /_fake/faults takes them (durations as Go
// duration strings), and remaining (uses left; null for a rule that applies
// to every matching request).
type faultOutJSON struct {
	ID int `json:"id"`
	faultJSON
	Remaining *int `json:"remaining"`
}

// listFaults: GET /_fake/faults: the installed rules, in the order they are
// tried.
func (a *admin) listFaults(w http.ResponseWriter, _ *http.Request) error {
	out := itemsJSON[faultOutJSON]{Items: []faultOutJSON{}}
	for _, fr := range a.srv.Faults() {
		f := fr.Fault
		fo := faultOutJSON{ID: fr.ID, faultJSON: faultJSON{
			Method: f.Method, Path: f.Path, Status: f.Status, Code: string(f.Code), Message: f.Message,
			RetryAfter: jsonDuration(f.RetryAfter), Latency: jsonDuration(f.Latency), Drop: f.Drop, Times: f.Times,
		}}
		if f.Details != nil {
			fo.Details, _ = json.Marshal(f.Details) // JSON already: a json.RawMessage
		}
		if f.Times > 0 {
			n := fr.Remaining
			fo.Remaining = &n
		}
		out.Items = append(out.Items, fo)
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

func (a *admin) clearFaults(w http.ResponseWriter, _ *http.Request) error {
	a.srv.ClearFaults()
	writeJSON(w, http.StatusOK, struct {
		OK bool `json:"ok"`
	}{true})
	return nil
}

// removeFault: DELETE /_fake/faults/{id}: 200 when the rule was installed,
// 404 not_found when there is no such rule (never added, removed, or a rule
// with times that ran out by itself).
func (a *admin) removeFault(w http.ResponseWriter, r *http.Request) error {
	id, err := strconv.Atoi(r.PathValue("id"))
	if err != nil || id <= 0 {
		return badRequest("fault id %q is not a positive integer", r.PathValue("id"))
	}
	if !a.srv.RemoveFault(id) {
		return errorf(http.StatusNotFound, "not_found", "no fault rule with id %d (it may have run out of times)", id)
	}
	writeJSON(w, http.StatusOK, struct {
		OK bool `json:"ok"`
		ID int  `json:"id"`
	}{true, id})
	return nil
}
