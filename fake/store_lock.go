package fake

// lockMode is how a handler holds the state's lock: shared for a read,
// exclusive for a change.
type lockMode bool

const (
	readOnly  lockMode = false // the read lock: many readers at once
	readWrite lockMode = true  // the write lock: alone
)

// withStore is the handlers' one way into the state: it runs f under the
// state's lock (the read lock or the write lock, as mode says) and releases
// the lock however f ends, by a return or a panic, so that no path of a
// handler can leave the server locked. f returns the API error the handler
// answers with, or nil; withStore returns it. f must not write the answer
// (a slow client would hold the lock): it copies out what the answer needs.
func (s *Server) withStore(mode lockMode, f func() *apiError) *apiError {
	if mode == readWrite {
		s.mu.Lock()
		defer s.mu.Unlock()
	} else {
		s.mu.RLock()
		defer s.mu.RUnlock()
	}
	return f()
}
