package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// stateLock is the exclusive lock one convofake holds on its --state file
// for its whole life, so that two processes never share the file (the last
// to exit would overwrite what the other saved). The lock is taken on a
// file of its own beside the state file, .<name>.lock, since a save
// replaces the state file itself (a new file renamed over it). The lock
// file holds the process id of its holder, for the message of a second
// process; it stays when the process ends, and the lock goes with the
// process, however it ends (the operating system releases it).
type stateLock struct {
	f *os.File
}

// lockPath is the lock file of the state file path.
func lockPath(path string) string {
	dir, base := filepath.Split(path)
	return filepath.Join(dir, "."+base+".lock")
}

// errStateLocked is the error of a --state file another process holds.
var errStateLocked = errors.New("in use by another process")

// lockState takes the lock of the state file path, or says which process
// holds it.
func lockState(path string) (*stateLock, error) {
	lp := lockPath(path)
	f, err := os.OpenFile(lp, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("--state %s: cannot be written: its lock file cannot be created beside it: %w", path, err)
	}
	if err := lockFile(f); err != nil {
		holder, _ := io.ReadAll(io.LimitReader(f, 32))
		_ = f.Close()
		if !errors.Is(err, errStateLocked) {
			return nil, fmt.Errorf("--state %s: cannot lock %s: %w", path, lp, err)
		}
		who := "another process"
		if pid, convErr := strconv.Atoi(strings.TrimSpace(string(holder))); convErr == nil {
			who = "process " + strconv.Itoa(pid)
		}
		return nil, fmt.Errorf("--state %s: the file is in use by %s (perhaps another convofake), which holds its lock %s: "+
			"stop that process, or give this one another --state file", path, who, lp)
	}
	if err := f.Truncate(0); err == nil {
		_, _ = f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	}
	return &stateLock{f: f}, nil
}

// release lets the lock go (at exit; the operating system does it too).
func (l *stateLock) release() {
	if l != nil && l.f != nil {
		_ = unlockFile(l.f)
		_ = l.f.Close()
		l.f = nil
	}
}
