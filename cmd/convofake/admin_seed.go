package main

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"time"

	"github.com/convoapi/convo-go/fake"
)

type infoJSON struct {
	CompanyID string    `json:"company_id"`
	Clock     clockJSON `json:"clock"`
	Endpoints []string  `json:"endpoints"`
}

func (a *admin) info(w http.ResponseWriter, _ *http.Request) error {
	writeJSON(w, http.StatusOK, infoJSON{
		CompanyID: a.srv.Company().ID(),
		Clock:     a.clockState(),
		Endpoints: []string{
			"POST /_fake/reset", "POST /_fake/seed",
			"GET /_fake/clock", "POST /_fake/clock",
			"GET /_fake/faults", "POST /_fake/faults", "DELETE /_fake/faults", "DELETE /_fake/faults/{id}",
			"GET /_fake/requests", "DELETE /_fake/requests",
			"GET /_fake/companies",
			"GET /_fake/state/contacts", "GET /_fake/state/contacts/{id}",
			"GET /_fake/state/conversations/{id}", "GET /_fake/state/messages/{id}",
		},
	})
	return nil
}

type okJSON struct {
	OK    bool      `json:"ok"`
	Clock clockJSON `json:"clock"`
}

// reset: POST /_fake/reset, optional body {"empty": true}. Without it the
// server goes back to its start: the start seed (demo data or --seed file)
// with the start API key, the clock at its start reading (a real clock:
// system time), no fault rules, an empty journal, fresh rate limits. With
// "empty": true it is fake.Server.Reset: no data at all (the default company
// keeps its id and current key).
func (a *admin) reset(w http.ResponseWriter, r *http.Request) error {
	var body struct {
		Empty bool `json:"empty"`
	}
	if err := decodeBody(r, &body, true); err != nil {
		return err
	}
	a.srv.Reset()
	if !body.Empty {
		clock := a.srv.Clock()
		if clock.Manual() {
			clock.Set(a.startNow)
		} else {
			clock.Set(time.Now())
		}
		if err := a.srv.Load(a.startSeed); err != nil {
			return errorf(http.StatusInternalServerError, "internal_error", "reloading the start seed: %v", err)
		}
	}
	writeJSON(w, http.StatusOK, okJSON{OK: true, Clock: a.clockState()})
	return nil
}

// seed: POST /_fake/seed, body a seed document (fake.Seed, see fake/SEED.md).
// It replaces the data (fake.Server.Load); the journal, fault rules and rate
// limits are kept. A "now" in the document sets the clock. A document that
// does not load changes nothing: 400 invalid_seed naming the JSON path.
func (a *admin) seed(w http.ResponseWriter, r *http.Request) error {
	data, err := io.ReadAll(r.Body)
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return errorf(http.StatusRequestEntityTooLarge, "body_too_large", "the seed is larger than %d bytes", mbe.Limit)
		}
		return badRequest("cannot read the body: %v", err)
	}
	seed, err := fake.LoadSeed(bytes.NewReader(data))
	if err != nil {
		return errorf(http.StatusBadRequest, "invalid_seed", "%v", err)
	}
	if err := a.srv.Load(seed); err != nil {
		return errorf(http.StatusBadRequest, "invalid_seed", "%v", err)
	}
	writeJSON(w, http.StatusOK, okJSON{OK: true, Clock: a.clockState()})
	return nil
}
