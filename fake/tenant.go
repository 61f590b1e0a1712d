package fake

import (
	"errors"
	"fmt"
	"time"
)

// This file holds what makes a company a tenant of its own on a shared
// server: its data replaced alone ([Company.Load]) and its part of the
// journal ([Company.Requests], [Company.ClearRequests]). Its state is read
// with [Company.ExportSeed] and the getters of inspect.go.

// ErrAPIKeyInUse is the error (under errors.Is) of adding a company, or
// giving one a key, when another company already has that API key. Its text
// names neither the key nor the other company.
var ErrAPIKeyInUse = errors.New("the API key is already used by another company")

// ErrCompanyIDInUse is the error (under errors.Is) of adding a company with
// an id another company already has. Its text names neither company.
var ErrCompanyIDInUse = errors.New("the company id is already used by another company")

// ErrNoCompany is the error (under errors.Is) of a [Company] method whose
// company is gone (the server was reset or reloaded since the handle was
// taken).
var ErrNoCompany = errors.New("the company no longer exists")

// Load replaces the company's channels, contacts and conversations with
// those of cs, as [Server.Load] does for the whole server, leaving the other
// companies, the clock, the journal and the fault rules alone. The
// company's id stays; its API key becomes cs.APIKey when cs gives one
// ([ErrAPIKeyInUse] when another company has it); cs.ID is ignored.
// Relative times count back from the clock's now. On error nothing
// changes; the error names the JSON path of the faulty field, e.g.
// "seed: company.contacts[0].phone". Load with an empty CompanySeed
// empties the company.
func (c *Company) Load(cs CompanySeed) error {
	s := c.s
	now := s.clock.Now()
	s.mu.Lock()
	defer s.mu.Unlock()
	old := s.byID[c.id]
	if old == nil {
		return fmt.Errorf("seed: %w", ErrNoCompany)
	}
	key := old.apiKey
	if cs.APIKey != "" && cs.APIKey != key {
		if s.keyTaken(cs.APIKey) {
			return fmt.Errorf("seed: company.api_key: %w", ErrAPIKeyInUse)
		}
		key = cs.APIKey
	}
	fresh := newCompany(key)
	fresh.id, fresh.start = old.id, old.start
	s.swapCompany(old, fresh)
	s.loadNow = now
	defer func() { s.loadNow = time.Time{} }()
	if err := s.loadCompanyLocked("seed: company", fresh, cs); err != nil {
		s.swapCompany(fresh, old)
		return err
	}
	return nil
}

// Reset puts the company back to the data it was added with: the
// CompanySeed of [Server.AddCompanySeed], or the company's part of the seed
// [Server.Load] (or [WithSeed]) loaded last; no data for a company of
// [Server.AddCompany]. Its requests leave the journal. Its id and API key
// stay; the other companies, the clock and the fault rules are left
// alone. Relative times count back from the clock's now, as [Company.Load].
func (c *Company) Reset() error {
	c.s.mu.RLock()
	co := c.s.byID[c.id]
	var start *startSeed
	if co != nil {
		start = co.start
	}
	c.s.mu.RUnlock()
	if co == nil {
		return ErrNoCompany
	}
	var cs CompanySeed
	if start != nil {
		var err error
		if cs, err = start.company(); err != nil {
			return err
		}
	}
	cs.APIKey, cs.ID = "", ""
	if err := c.Load(cs); err != nil {
		return err
	}
	c.ClearRequests()
	return nil
}

// keyTaken reports whether a company has the API key. The caller holds s.mu.
func (s *Server) keyTaken(apiKey string) bool {
	for _, co := range s.companies {
		if co.apiKey == apiKey {
			return true
		}
	}
	return false
}

// swapCompany puts next where prev is (same id). The caller holds s.mu.
func (s *Server) swapCompany(prev, next *company) {
	for i, co := range s.companies {
		if co == prev {
			s.companies[i] = next
		}
	}
	s.byID[next.id] = next
	if s.defaultCo == prev {
		s.defaultCo = next
	}
}

// Requests returns the requests of the journal made with the company's API
// key, oldest first (see [Server.Requests]).
func (c *Company) Requests() []Request {
	var out []Request
	for _, r := range c.s.Requests() {
		if r.CompanyID == c.id {
			out = append(out, r)
		}
	}
	return out
}

// ClearRequests removes the company's requests from the journal, leaving
// the others'.
func (c *Company) ClearRequests() {
	j := &c.s.journal
	j.mu.Lock()
	defer j.mu.Unlock()
	var kept []entry
	j.bytes = 0
	for i := range j.n {
		if e := j.at(i); e.req.CompanyID != c.id {
			kept = append(kept, *e)
			j.bytes += e.size
		}
	}
	j.ring, j.start, j.n = kept, 0, len(kept)
}

// AddCompanySeed adds a company with the data of cs, as the seed's later
// companies are added: cs.APIKey is its key (required; [ErrAPIKeyInUse]
// when another company has it), cs.ID its id (default a new UUID;
// [ErrCompanyIDInUse] when taken). The ids of its channels, contacts,
// conversations and messages need only be unique within it: two companies
// loaded from one fixture hold the same ids, each reading and changing its
// own. Relative times count back from the clock's now. On error nothing is
// added; the error names the JSON path of the faulty field, e.g.
// "seed: company.contacts[0].phone".
func (s *Server) AddCompanySeed(cs CompanySeed) (*Company, error) {
	now := s.clock.Now()
	s.mu.Lock()
	defer s.mu.Unlock()
	co, err := s.addCompanyLocked(cs.APIKey, cs.ID)
	if err != nil {
		return nil, companyError("seed: company", err)
	}
	s.loadNow = now
	defer func() { s.loadNow = time.Time{} }()
	co.start = &startSeed{doc: encodeSeed(&Seed{Companies: []CompanySeed{cs}})}
	if err := s.loadCompanyLocked("seed: company", co, cs); err != nil {
		s.companies = s.companies[:len(s.companies)-1]
		delete(s.byID, co.id)
		return nil, err
	}
	return &Company{s: s, id: co.id}, nil
}
