package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"time"

	"github.com/convoapi/convo-go/fake"
)

type itemsJSON[T any] struct {
	Items []T `json:"items"`
}

// companyJSON is a company, as GET /_fake/companies lists it.
type companyJSON struct {
	ID       string `json:"id"`
	Default  bool   `json:"default"`
	Contacts int    `json:"contacts"`
}

// companies: GET /_fake/companies: every company (tenant), the default one
// (the first of the seed) first, then in seed order. The ids are the values
// of ?company= on the state endpoints. API keys are not shown.
func (a *admin) companies(w http.ResponseWriter, _ *http.Request) error {
	out := itemsJSON[companyJSON]{Items: []companyJSON{}}
	for i, co := range a.srv.Companies() {
		out.Items = append(out.Items, companyJSON{ID: co.ID(), Default: i == 0, Contacts: len(co.Contacts())})
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

// company resolves ?company=<company id> (GET /_fake/companies lists them)
// or <API key> (a test job knows its key); absent: the default company.
func (a *admin) company(r *http.Request) (*fake.Company, error) {
	id := r.URL.Query().Get("company")
	if !r.URL.Query().Has("company") {
		return a.srv.Company(), nil
	}
	for _, co := range a.srv.Companies() {
		if co.ID() == id {
			return co, nil
		}
	}
	if co, ok := a.srv.CompanyByKey(id); ok {
		return co, nil
	}
	return nil, errorf(http.StatusNotFound, "not_found", "no company with id %q; GET /_fake/companies lists them", id)
}

// contacts: GET /_fake/state/contacts[?company=&phone=&account=]: the
// contacts of the default company, or of ?company=<id>; with phone, the one
// with that phone (normalized) on the channel account account, or (no
// account) the one with the most recent interaction on any account: 0 or 1
// items.
func (a *admin) contacts(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	co, err := a.company(r)
	if err != nil {
		return err
	}
	out := itemsJSON[fake.Contact]{Items: []fake.Contact{}}
	switch {
	case q.Has("phone"):
		if c, ok := co.ContactByPhone(q.Get("account"), q.Get("phone")); ok {
			out.Items = append(out.Items, c)
		}
	case q.Has("account"):
		return badRequest("account needs phone")
	default:
		out.Items = append(out.Items, co.Contacts()...)
	}
	writeState(w, out)
	return nil
}

// contact, conversation, message: GET /_fake/state/{kind}/{id}[?company=]:
// the object of the default company, or of ?company=, as the fake's
// inspection returns it, in the keys of a seed document (SEED.md) plus
// those the server sets. Ids are unique within a company only: another
// company's object of the same id is not this one.
func (a *admin) contact(w http.ResponseWriter, r *http.Request) error {
	return found(a, w, r, "contact", (*fake.Company).Contact)
}

func (a *admin) conversation(w http.ResponseWriter, r *http.Request) error {
	return found(a, w, r, "conversation", (*fake.Company).Conversation)
}

func (a *admin) message(w http.ResponseWriter, r *http.Request) error {
	return found(a, w, r, "message", (*fake.Company).Message)
}

func found[T any](a *admin, w http.ResponseWriter, r *http.Request, kind string, get func(*fake.Company, string) (T, bool)) error {
	co, err := a.company(r)
	if err != nil {
		return err
	}
	v, ok := get(co, r.PathValue("id"))
	if !ok {
		return notFound(kind, r.PathValue("id"))
	}
	writeState(w, v)
	return nil
}

func notFound(kind, id string) error {
	return errorf(http.StatusNotFound, "not_found", "no %s with id %q", kind, id)
}

// writeState writes the state of a contact, conversation or message with
// its times ("at", "created_at", every "…_at") as the API writes them, to
// the millisecond (2026-11-22T10:00:00.000Z), not as Go writes a time
// (2026-11-22T10:00:00Z, or to the nanosecond), so that a time read here
// compares as text with the API's.
func writeState(w http.ResponseWriter, v any) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		writeJSON(w, http.StatusOK, v) // says it cannot encode it
		return
	}
	out := stateTime.ReplaceAllFunc(buf.Bytes(), func(m []byte) []byte {
		sub := stateTime.FindSubmatch(m)
		t, err := time.Parse(time.RFC3339Nano, string(sub[2]))
		if err != nil {
			return m
		}
		return fmt.Appendf(nil, "%s%q", sub[1], formatTime(t))
	})
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(out)
}

// stateTime is a time member of the JSON of a state object: its key (at,
// or ending in _at) with the separator, and the time. A key inside a
// string is escaped (\"at\") and does not match.
var stateTime = regexp.MustCompile(`("(?:at|[a-z_]+_at)": )"(\d{4}-\d{2}-\d{2}T[0-9:.]+(?:Z|[+-]\d{2}:\d{2}))"`)
