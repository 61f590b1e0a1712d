package main

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/convoapi/convo-go/fake"
)

// stateFile is --state FILE: the state as a seed document (fake/SEED.md),
// read at start when the file exists and written on shutdown (SIGINT,
// SIGTERM) and on POST /_fake/save.
//
// The process holds an exclusive lock on the file for its whole life
// (stateLock): a second convofake on the same file does not start. At start
// the file's directory is checked writable (a state that could not be saved
// at exit is refused then, not lost then), and the temporary files of a
// save that was interrupted are removed.
//
// A save never leaves a half-written file at path: the document goes to a
// temporary file in the same directory (.<name>.tmp-<random>), which is
// synced, renamed over path and the directory synced (writeAtomic). A crash
// mid-save leaves the previous file whole, and at worst that temporary
// file, which the next start removes.
type stateFile struct {
	path string
	srv  *fake.Server
	lock *stateLock
	mu   sync.Mutex // one save at a time
}

// openStateFile takes the lock of --state's file, checks that its
// directory is writable, removes the temporary files of an interrupted
// save and reads the file, up to limit bytes: seed is nil when it does not
// exist yet (the server then starts from --seed or the demo data), doc
// the document as read (readSeedFile). On error nothing is held.
//
// A path that is a symbolic link (or a chain of them) stands for the file
// it links to, which need not exist yet: that file is locked, read and
// saved, and the link stays a link. Otherwise a save would rename over the
// link, never updating its target, and a second convofake on the target
// would take another lock file and start.
func openStateFile(path string, limit int64) (f *stateFile, seed *fake.Seed, doc []byte, err error) {
	if path, err = followLinks(path); err != nil {
		return nil, nil, nil, err
	}
	if fi, err := os.Stat(path); err == nil && !fi.Mode().IsRegular() {
		return nil, nil, nil, fmt.Errorf("--state %s: not a regular file", path)
	}
	lock, err := lockState(path)
	if err != nil {
		return nil, nil, nil, err
	}
	defer func() {
		if err != nil {
			lock.release()
		}
	}()
	if err := checkWritable(path); err != nil {
		return nil, nil, nil, err
	}
	removeStaleTemps(path)
	seed, doc, err = readSeedFile("--state", path, limit)
	if errors.Is(err, fs.ErrNotExist) {
		seed, doc, err = nil, nil, nil
	}
	if err != nil {
		return nil, nil, nil, err
	}
	return &stateFile{path: path, lock: lock}, seed, doc, nil
}

// followLinks returns the file path names once every symbolic link of its
// last element is followed: path itself when it is no link (or does not
// exist). A link's relative target is read from the link's directory.
func followLinks(path string) (string, error) {
	const maxLinks = 40 // as Linux's ELOOP
	for range maxLinks {
		fi, err := os.Lstat(path)
		if err != nil || fi.Mode()&fs.ModeSymlink == 0 {
			return path, nil
		}
		target, err := os.Readlink(path)
		if err != nil {
			return "", fmt.Errorf("--state %s: %w", path, err)
		}
		if !filepath.IsAbs(target) {
			target = filepath.Join(filepath.Dir(path), target)
		}
		path = target
	}
	return "", fmt.Errorf("--state %s: more than %d symbolic links in a row", path, maxLinks)
}

// checkWritable makes and removes a temporary file where a save makes
// its own, so that a state that could not be saved is refused at start.
func checkWritable(path string) error {
	dir, base := filepath.Split(path)
	tmp, err := os.CreateTemp(cmp.Or(dir, "."), "."+base+".tmp-*")
	if err != nil {
		return fmt.Errorf("--state %s: cannot be written (a save writes a file beside it, then renames it): %w", path, err)
	}
	_ = tmp.Close()
	return os.Remove(tmp.Name())
}

// removeStaleTemps removes the temporary files a save cut short left
// beside path. The caller holds the lock: no save of another process is
// writing one.
func removeStaleTemps(path string) {
	dir, base := filepath.Split(path)
	stale, _ := filepath.Glob(filepath.Join(cmp.Or(dir, "."), "."+globEscape(base)+".tmp-*"))
	for _, name := range stale {
		_ = os.Remove(name)
	}
}

// globEscape escapes the characters filepath.Match reads as a pattern.
func globEscape(s string) string {
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune(`*?[]\`, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// readSeedFile reads the seed document of flag's file, at most limit
// bytes: a larger file is refused, never read whole. A file that does not
// exist is fs.ErrNotExist. doc is the document as read, which the seed
// was decoded from in place (fake.DecodeSeedBytes), for the server to
// keep as its Reset copy (fake.WithSeedDocument).
func readSeedFile(flagName, path string, limit int64) (seed *fake.Seed, doc []byte, err error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, err
	}
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", flagName, err)
	}
	defer f.Close()
	r := &capped{r: f, left: limit, size: -1}
	if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() {
		r.size = min(fi.Size(), limit)
	}
	doc, err = readDoc(r)
	if r.over {
		return nil, nil, fmt.Errorf("%s %s: larger than --max-seed-size (%d bytes); raise it to read this file", flagName, path, limit)
	}
	if err == nil {
		seed, err = fake.DecodeSeedBytes(doc) // as strictly as loadSeed
	} else {
		err = fmt.Errorf("seed: %w", err)
	}
	if err != nil {
		return nil, nil, fmt.Errorf("%s %s: %w", flagName, path, err)
	}
	return seed, doc, nil
}

// readDoc reads r to its end, into a buffer of the size r tells (see
// newDocBuffer), else one that grows as it must.
func readDoc(r *capped) ([]byte, error) {
	if r.size < 0 {
		return io.ReadAll(r)
	}
	// MinRead more than told: the read that finds the end then has room,
	// and the buffer is not grown (copied into the heap) for it.
	b := bytes.NewBuffer(newDocBuffer(int(r.size) + bytes.MinRead))
	_, err := b.ReadFrom(r)
	return b.Bytes(), err
}

// capped reads at most left bytes of r; over is set when r holds more.
// size is what r holds as far as known (-1: unknown), so that the reader
// of the document sizes its buffer once.
type capped struct {
	r    io.Reader
	left int64
	over bool
	size int64
}

func (c *capped) Read(p []byte) (int, error) {
	if c.left <= 0 {
		var one [1]byte
		if n, _ := c.r.Read(one[:]); n > 0 {
			c.over = true
			return 0, errors.New("too large")
		}
		return 0, io.EOF
	}
	if int64(len(p)) > c.left {
		p = p[:c.left]
	}
	n, err := c.r.Read(p)
	c.left -= int64(n)
	return n, err
}

// save writes the server's state to the file, atomically, as compact JSON
// (a third smaller than indented, and faster to read back).
func (f *stateFile) save() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	seed := f.srv.ExportSeed()
	return writeAtomic(f.path, func(w io.Writer) error {
		enc := json.NewEncoder(w)
		enc.SetEscapeHTML(false)
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
