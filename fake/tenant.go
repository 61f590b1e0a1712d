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

// Load replaces the company's channels, contacts and conversations with
// those of cs, as [Server.Load] does for the whole server, leaving the other
// companies, the clock, the journal and the fault rules alone. The
// company's id stays; its API key becomes cs.APIKey when cs gives one (and
// no other company has it); cs.ID is ignored. Relative times count back
// from the clock's now. On error nothing changes; the error names the
// JSON path of the faulty field, e.g. "seed: company.contacts[0].phone".
// Load with an empty CompanySeed empties the company.
func (c *Company) Load(cs CompanySeed) error {
	s := c.s
	now := s.clock.Now()
	s.mu.Lock()
	defer s.mu.Unlock()
	old := s.byID[c.id]
	if old == nil {
		return errors.New("seed: the company no longer exists")
	}
	key := old.apiKey
	if cs.APIKey != "" && cs.APIKey != key {
		for _, other := range s.companies {
			if other.apiKey == cs.APIKey {
				return fmt.Errorf("seed: company.api_key: the API key is already used by company %s", other.id)
			}
		}
		key = cs.APIKey
	}
	fresh := newCompany(key)
	fresh.id = old.id
	s.swapCompany(old, fresh)
	old.eachObject(func(id string, _ any) { delete(s.index, id) })
	s.loadNow = now
	defer func() { s.loadNow = time.Time{} }()
	if err := s.loadCompanyLocked("seed: company", fresh, cs); err != nil {
		fresh.eachObject(func(id string, _ any) { delete(s.index, id) })
		old.eachObject(func(id string, obj any) { s.index[id] = obj })
		s.swapCompany(fresh, old)
		return err
	}
	return nil
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

// eachObject calls f with every object of the company the index holds:
// accounts, contacts, conversations and their messages.
func (co *company) eachObject(f func(id string, obj any)) {
	for _, acc := range co.accounts {
		f(acc.id, acc)
	}
	for id, ct := range co.contacts {
		f(id, ct)
	}
	for _, cv := range co.conversations {
		f(cv.ID, cv)
		for _, m := range cv.msgs {
			f(m.MessageID, m)
		}
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
	kept := make([]Request, 0, len(j.entries)-j.head)
	j.bytes = 0
	for _, r := range j.entries[j.head:] {
		if r.CompanyID != c.id {
			kept = append(kept, r)
			j.bytes += entrySize(&r)
		}
	}
	j.entries, j.head = kept, 0
}

// AddCompanySeed adds a company with the data of cs, as the seed's later
// companies are added: cs.APIKey is its key (required, and no other
// company's), cs.ID its id (default a new UUID). Relative times count back
// from the clock's now. On error nothing is added; the error names the
// JSON path of the faulty field, e.g. "seed: company.contacts[0].phone".
func (s *Server) AddCompanySeed(cs CompanySeed) (*Company, error) {
	now := s.clock.Now()
	s.mu.Lock()
	defer s.mu.Unlock()
	co, err := s.addCompanyLocked(cs.APIKey, cs.ID)
	if err != nil {
		return nil, fmt.Errorf("seed: company: %w", err)
	}
	s.loadNow = now
	defer func() { s.loadNow = time.Time{} }()
	if err := s.loadCompanyLocked("seed: company", co, cs); err != nil {
		co.eachObject(func(id string, _ any) { delete(s.index, id) })
		s.companies = s.companies[:len(s.companies)-1]
		delete(s.byID, co.id)
		return nil, err
	}
	return &Company{s: s, id: co.id}, nil
}
