package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"sync"

	"github.com/convoapi/convo-go/fake"
)

// stateFile is --state FILE: the state as a seed document (fake/SEED.md),
// read at start when the file exists and written on shutdown (SIGINT,
// SIGTERM) and on POST /_fake/save.
//
// A save never leaves a half-written file at path: the document goes to a
// temporary file in the same directory, which is synced, renamed over path
// and the directory synced (writeAtomic). A crash mid-save leaves the
// previous file whole, and at worst a stray temporary file
// (.<name>.tmp-<random>) that start ignores.
type stateFile struct {
	path string
	srv  *fake.Server
	mu   sync.Mutex // one save at a time
}

// readStateFile reads --state's file: ok is false when it does not exist
// yet (the server then starts from --seed or the demo data).
func readStateFile(path string) (seed *fake.Seed, ok bool, err error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("--state: %w", err)
	}
	seed, err = loadSeed(data)
	if err != nil {
		return nil, false, fmt.Errorf("--state %s: %w", path, err)
	}
	return seed, true, nil
}

// save writes the server's state to the file, atomically.
func (f *stateFile) save() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	seed := f.srv.ExportSeed()
	return writeAtomic(f.path, func(w io.Writer) error {
		enc := json.NewEncoder(w)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		return enc.Encode(seed)
	})
}

// writeAtomic replaces path with what write writes: into a temporary file
// of the same directory, synced, then renamed over path, then the directory
// synced so that the rename itself survives a power loss. On any error the
// temporary file is removed and path is left as it was.
func writeAtomic(path string, write func(io.Writer) error) (err error) {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	tmp, err := os.CreateTemp(dir, "."+base+".tmp-*")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			_ = tmp.Close()
			_ = os.Remove(tmp.Name())
		}
	}()
	if err = write(tmp); err != nil {
		return err
	}
	if err = tmp.Sync(); err != nil {
		return err
	}
	if err = tmp.Close(); err != nil {
		return err
	}
	if err = os.Rename(tmp.Name(), path); err != nil {
		return err
	}
	return syncDir(dir)
}

// syncDir flushes a directory's entries (a rename) to disk.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

// saveOnExit saves the state at shutdown, when --state is set; a failure is
// reported on stderr and makes the exit code 1.
func (a *app) saveOnExit(stderr io.Writer) bool {
	if a.state == nil {
		return true
	}
	if err := a.state.save(); err != nil {
		fmt.Fprintf(stderr, "convofake: --state %s: the state was not saved: %v\n", a.state.path, err)
		return false
	}
	a.logger.Info("state saved", "file", a.state.path)
	return true
}

// saveState: POST /_fake/save: writes the state to the --state file now
// (the same document as GET /_fake/seed). Without --state: 409 no_state_file.
func (a *admin) saveState(w http.ResponseWriter, _ *http.Request) error {
	if a.state == nil {
		return errorf(http.StatusConflict, "no_state_file", "convofake was started without --state FILE: there is no file to save to; GET /_fake/seed gives the same document")
	}
	if err := a.state.save(); err != nil {
		return errorf(http.StatusInternalServerError, "save_failed", "--state %s: %v (the previous file is unchanged)", a.state.path, err)
	}
	writeJSON(w, http.StatusOK, struct {
		OK   bool   `json:"ok"`
		File string `json:"file"`
	}{true, a.state.path})
	return nil
}
