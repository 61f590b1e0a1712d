// This file (formerly package syncbuf) is a bytes.Buffer that several goroutines may write while
// a test reads it: a logger's, or the copier of a process's output. A test
// can wait for a text to appear in it without polling.

package testkit

import (
	"bytes"
	"strings"
	"sync"
	"time"
)

// Buffer is safe for concurrent use. The zero Buffer is empty and ready.
type Buffer struct {
	mu      sync.Mutex
	b       bytes.Buffer
	changed chan struct{} // closed (and dropped) at the next write; nil while no one waits
}

// Write appends p and wakes whoever waits in WaitFor.
func (s *Buffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.changed != nil {
		close(s.changed)
		s.changed = nil
	}
	return s.b.Write(p)
}

// String returns what was written so far.
func (s *Buffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// WaitFor waits until the buffer holds sub, woken by each write rather than
// polling, or until timeout passes; it reports whether sub appeared. The
// timeout is a guard against a hung test, not a timing assertion.
func (s *Buffer) WaitFor(sub string, timeout time.Duration) bool {
	deadline := time.After(timeout)
	for {
		s.mu.Lock()
		if strings.Contains(s.b.String(), sub) {
			s.mu.Unlock()
			return true
		}
		if s.changed == nil {
			s.changed = make(chan struct{})
		}
		ch := s.changed
		s.mu.Unlock()
		select {
		case <-ch:
		case <-deadline:
			return false
		}
	}
}
