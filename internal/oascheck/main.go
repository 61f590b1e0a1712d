package oascheck

import (
	"fmt"
	"os"
	"testing"

	"github.com/convoapi/convo-go/internal/testhook"
)

// maxReported bounds the mismatches printed when a run fails.
const maxReported = 40

// Main is a TestMain body: it validates every exchange with every fake the
// tests start, runs them, and fails the run on any mismatch, printing each
// with its operation, field and value. With -v it prints the tally in one
// line; otherwise it prints nothing when all is well.
//
//	func TestMain(m *testing.M) { oascheck.Main(m) }
func Main(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	c, err := New()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	testhook.SetHandlerWrapper(c.Middleware)
	defer testhook.SetHandlerWrapper(nil)
	active.Store(c)
	defer active.Store(nil)
	code := m.Run()
	st := c.Stats()
	if testing.Verbose() || len(st.Mismatches) > 0 {
		fmt.Fprintln(os.Stderr, st.Summary())
	}
	for i, mm := range st.Mismatches {
		if i == maxReported {
			fmt.Fprintf(os.Stderr, "oascheck: ... and %d more\n", len(st.Mismatches)-maxReported)
			break
		}
		fmt.Fprintln(os.Stderr, "oascheck: mismatch:", mm)
	}
	if len(st.Mismatches) > 0 && code == 0 {
		code = 1
	}
	return code
}
