package demo

import (
	"io"
	"os"
)

// IsTerminal reports whether w is a terminal, where a long run may show a
// progress line that redraws itself; anywhere else (a file, a pipe, a test's
// buffer) it stays quiet.
func IsTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}
