package main

import (
	"errors"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/convoapi/convo-go/fake"
)

// Tenants: a shared convofake serves many test jobs, each in a company of
// its own (POST /_fake/companies) that sees nothing of the others' data.
// Every admin endpoint that reads or clears something of a company takes
// ?company=<company id or API key>: the state reads, GET /_fake/seed, the
// journal (GET and DELETE /_fake/requests) and POST /_fake/reset.

// tenants serializes creations: a taken key or id is replaced, then the
// company added, with no other creation in between.
type tenants struct {
	mu sync.Mutex
}

// companyBody is the body of POST /_fake/companies: a seed company
// (fake.CompanySeed: api_key, id, channels, contacts, conversations), or a
// seed document holding one company, as GET /_fake/seed?company= writes
// it (its now is ignored: the server's clock stays).
type companyBody struct {
	fake.CompanySeed
	Companies []fake.CompanySeed `json:"companies,omitempty"`
	Now       *time.Time         `json:"now,omitempty"`
}

// createdJSON is the answer of POST /_fake/companies. replaced lists the
// fields of the body that another company already had ("api_key", "id"),
// which the company got new values for instead; notice says so in words.
type createdJSON struct {
	ID       string   `json:"id"`
	APIKey   string   `json:"api_key"`
	Replaced []string `json:"replaced"`
	Notice   string   `json:"notice,omitempty"`
}

// createCompany: POST /_fake/companies, optional body (companyBody): adds
// a company with its own API key (the body's api_key, else a random one)
// and, from the body, its data; 201 {"id", "api_key", "replaced"}. The ids
// of its channels, contacts, conversations and messages need be unique
// only within it, so one fixture file loads in every test job's company.
// A body's api_key or id that another company already has is replaced by
// a new one (listed in replaced; the answer names neither the other
// company nor its key). 400 invalid_seed names the JSON path of a bad
// field, and adds nothing.
func (a *admin) createCompany(w http.ResponseWriter, r *http.Request) error {
	var body companyBody
	if err := decodeBody(r, &body, true); err != nil {
		return err
	}
	cs := body.CompanySeed
	switch len(body.Companies) {
	case 0:
	case 1:
		cs = body.Companies[0]
	default:
		return badRequest("companies: a company is created from one seed company, not %d", len(body.Companies))
	}
	if cs.APIKey == "" {
		cs.APIKey = "ck_" + randomToken()
	}
	a.tenants.mu.Lock()
	defer a.tenants.mu.Unlock()
	out := createdJSON{Replaced: []string{}}
	for {
		co, err := a.srv.AddCompanySeed(cs)
		switch {
		case errors.Is(err, fake.ErrAPIKeyInUse):
			cs.APIKey = "ck_" + randomToken()
			out.Replaced = append(out.Replaced, "api_key")
			continue
		case errors.Is(err, fake.ErrCompanyIDInUse):
			cs.ID = ""
			out.Replaced = append(out.Replaced, "id")
			continue
		case err != nil:
			return errorf(http.StatusBadRequest, "invalid_seed", "%s", redactSecrets(err.Error(), cs.APIKey))
		}
		a.logger.Info("company created", "company", co.ID())
		out.ID, out.APIKey = co.ID(), cs.APIKey
		if len(out.Replaced) > 0 {
			out.Notice = "another company already had the body's " + strings.Join(out.Replaced, " and ") +
				": this company got a new one (above); use it, not the body's"
		}
		writeJSON(w, http.StatusCreated, out)
		return nil
	}
}

// resetCompany: POST /_fake/reset?company=: that company alone goes back
// to the data it was added with (fake.Company.Reset: its POST
// /_fake/companies body, or its part of the seed loaded last), or with
// {"empty": true} to none; its requests leave the journal. Its id and key
// stay; the other companies, the clock and the fault rules are left alone.
func (a *admin) resetCompany(w http.ResponseWriter, r *http.Request, empty bool) error {
	co, err := a.company(r)
	if err != nil {
		return err
	}
	if empty {
		err = co.Load(fake.CompanySeed{})
		co.ClearRequests()
	} else {
		err = co.Reset()
	}
	if errors.Is(err, fake.ErrNoCompany) {
		return errorf(http.StatusNotFound, "not_found", "the company no longer exists (the server was reset or reloaded)")
	}
	if err != nil {
		return errorf(http.StatusInternalServerError, "internal_error", "%s", redactSecrets(err.Error(), serverKeys(a.srv)...))
	}
	writeJSON(w, http.StatusOK, okJSON{OK: true, Clock: a.clockState()})
	return nil
}

// requestsCompany is the company id ?company= names for the journal ("":
// every request).
func (a *admin) requestsCompany(r *http.Request) (string, error) {
	if !r.URL.Query().Has("company") {
		return "", nil
	}
	co, err := a.company(r)
	if err != nil {
		return "", err
	}
	return co.ID(), nil
}
