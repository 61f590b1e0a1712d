package main

import (
	"net/http"

	"github.com/convoapi/convo-go/fake"
)

// exportSeed: GET /_fake/seed (also GET /_fake/state/seed): the state as a
// seed document (fake/SEED.md) that --seed, --state and POST /_fake/seed
// load back into the same answers: every company with its id and API key,
// channel accounts and webchat widgets, contacts (tag ids, canceled
// sequences), conversations with their messages (media contents included),
// and the frozen clock's now. It is fake.Server.ExportSeed: read from the
// store, nothing goes to the journal or the rate limits. With
// ?company=<id or API key>: a document of that company alone (with its id
// and key), which POST /_fake/companies takes as companies[0]. The
// document is compact JSON, as the --state file is.
func (a *admin) exportSeed(w http.ResponseWriter, r *http.Request) error {
	seed := a.srv.ExportSeed()
	if r.URL.Query().Has("company") {
		co, err := a.company(r)
		if err != nil {
			return err
		}
		cs, ok := co.ExportSeed()
		if !ok {
			return errorf(http.StatusNotFound, "not_found", "the company no longer exists")
		}
		seed.Companies = []fake.CompanySeed{cs}
	}
	writeEncoded(w, http.StatusOK, seed, false) // compact: a third smaller
	return nil
}
