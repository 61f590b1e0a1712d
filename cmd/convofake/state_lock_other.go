//go:build !unix

package main

import (
	"os"
	"sync"
)

// Without flock(2), the lock holds within this process only: two
// convofakes on one --state file are refused on Unix systems, not here.
var (
	heldMu sync.Mutex
	held   = map[string]bool{}
)

func lockFile(f *os.File) error {
	heldMu.Lock()
	defer heldMu.Unlock()
	if held[f.Name()] {
		return errStateLocked
	}
	held[f.Name()] = true
	return nil
}

func unlockFile(f *os.File) error {
	heldMu.Lock()
	defer heldMu.Unlock()
	delete(held, f.Name())
	return nil
}
