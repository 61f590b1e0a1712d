package main

import (
	"errors"
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
			"GET /_fake/companies", "POST /_fake/companies", "GET /_fake/seed", "POST /_fake/save",
			"GET /_fake/state/contacts", "GET /_fake/state/contacts/{id}",
			"GET /_fake/state/channels", "GET /_fake/state/conversations",
			"GET /_fake/state/conversations/{id}", "GET /_fake/state/conversations/{id}/messages",
			"GET /_fake/state/messages/{id}", "GET /_fake/state/media/{id}", "GET /_fake/state/seed", "GET /_fake/ui/",
		},
	})
	return nil
}

// okJSON is the answer of POST /_fake/reset and POST /_fake/seed. Because
// the API key printed at start stops working when the call changes the
// default company's key, the answer says whether it did (api_key_changed)
// and what to do (notice); it never shows a key.
type okJSON struct {
	OK            bool      `json:"ok"`
	Clock         clockJSON `json:"clock"`
	APIKeyChanged bool      `json:"api_key_changed"`
	Notice        string    `json:"notice,omitempty"`
}

// reset: POST /_fake/reset, optional body {"empty": true}. Without it the
// server goes back to its start: the start seed (demo data or --seed file)
// with the start API key, the clock at its start reading (a real clock:
// system time), no fault rules, an empty journal, fresh rate limits. With
// "empty": true: no data at all (the default company keeps its id and
// current key), no fault rules, an empty journal, fresh rate limits.
func (a *admin) reset(w http.ResponseWriter, r *http.Request) error {
	var body struct {
		Empty bool `json:"empty"`
	}
	if err := decodeBody(r, &body, true); err != nil {
		return err
	}
	if r.URL.Query().Has("company") {
		return a.resetCompany(w, r, body.Empty)
	}
	before := a.srv.APIKey()
	if body.Empty {
		a.srv.Clear()
	} else {
		// The start seed (given with fake.WithSeed), key and frozen clock.
		a.srv.Reset()
		if clock := a.srv.Clock(); !clock.Manual() {
			clock.Set(time.Now()) // a real clock goes back to the machine's time, on purpose
		}
	}
	out := okJSON{OK: true, Clock: a.clockState()}
	if a.srv.APIKey() != before {
		out.APIKeyChanged = true
		out.Notice = "the default company's API key is back to the one printed at start (CONVO_API_KEY)"
		a.logger.Info("reset: the default company's API key is back to the start key", "company", a.srv.Company().ID())
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

// seed: POST /_fake/seed, body a seed document (the fake's JSON seed
// format, fake/SEED.md). It replaces the data; the journal, fault rules and
// rate limits are kept. A "now" in the document sets the frozen clock. A
// document that does not load changes nothing: 400 invalid_seed naming the
// JSON path. A companies[0].api_key other than the current key replaces
// the key clients use: the answer and the log say so (naming the company,
// never the key).
func (a *admin) seed(w http.ResponseWriter, r *http.Request) error {
	before := a.srv.APIKey()
	seed, err := loadSeed(r.Body) // bounded by --max-seed-size (ServeHTTP)
	var mbe *http.MaxBytesError
	if errors.As(err, &mbe) {
		return tooLarge(r, mbe.Limit)
	}
	if err != nil {
		return errorf(http.StatusBadRequest, "invalid_seed", "%s", redactSecrets(err.Error(), serverKeys(a.srv)...))
	}
	err = a.srv.Load(seed)
	if errors.Is(err, fake.ErrRealClock) { // the fake's text advises a manual clock; say it in flags
		return errorf(http.StatusBadRequest, "invalid_seed",
			`seed: now: convofake runs on the real clock, which cannot be set; remove "now" from the seed, or restart convofake with --clock=frozen (or --clock=frozen:<RFC 3339 time>, or a --seed file with "now")`)
	}
	if err != nil {
		secrets := append(seedKeys(seed), serverKeys(a.srv)...)
		return errorf(http.StatusBadRequest, "invalid_seed", "%s", redactSecrets(err.Error(), secrets...))
	}
	out := okJSON{OK: true, Clock: a.clockState()}
	if a.srv.APIKey() != before {
		company := a.srv.Company().ID()
		out.APIKeyChanged = true
		out.Notice = "the seed's companies[0].api_key replaced the API key of the default company " + company +
			": calls with the previous key (CONVO_API_KEY printed at start) now get 401; use the seed's key, or POST /_fake/reset to go back to the start key"
		a.logger.Warn("seed: the API key of the default company changed; the key printed at start no longer works",
			"company", company, "from", "companies[0].api_key")
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}
