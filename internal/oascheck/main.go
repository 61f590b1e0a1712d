package oascheck

import (
	"flag"
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
// line; otherwise it prints nothing when all is well. Under -bench and -fuzz
// it stays off, so that they measure and fuzz the code, not the validator.
//
//	func TestMain(m *testing.M) { oascheck.Main(m) }
func Main(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	flag.Parse()
	for _, name := range []string{"test.bench", "test.fuzz"} {
		if f := flag.Lookup(name); f != nil && f.Value.String() != "" {
			// Benchmarks measure the fake and the SDK, not the validator;
			// fuzzing looks for panics, at full speed.
			return m.Run()
		}
	}
	c, err := New()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	testhook.SetHandlerWrapper(c.Middleware)
	defer testhook.SetHandlerWrapper(nil)
	active.Store(c)
	defer active.Store(nil)
	finished := false
	defer func() {
		if !finished { // a test panicked out of m.Run: still say what was seen
			report(c.Stats())
		}
	}()
	code := m.Run()
	finished = true
	if report(c.Stats()) && code == 0 {
		code = 1
	}
	return code
}

// report prints the tally under -v or when anything mismatched, then each
// mismatch; it reports whether any did.
func report(st Stats) bool {
	if testing.Verbose() || len(st.Mismatches) > 0 {
		fmt.Fprintln(os.Stderr, st.Summary())
	}
	for i, line := range dedupe(st.Mismatches) {
		if i == maxReported {
			fmt.Fprintln(os.Stderr, "oascheck: ... and more")
			break
		}
		fmt.Fprintln(os.Stderr, "oascheck: mismatch:", line)
	}
	return len(st.Mismatches) > 0
}

// dedupe keeps the first occurrence of each mismatch, in order, with a
// count when it repeats.
func dedupe(lines []string) []string {
	count := map[string]int{}
	var order []string
	for _, l := range lines {
		if count[l] == 0 {
			order = append(order, l)
		}
		count[l]++
	}
	out := make([]string, len(order))
	for i, l := range order {
		out[i] = l
		if n := count[l]; n > 1 {
			out[i] = fmt.Sprintf("%s (%d times)", l, n)
		}
	}
	return out
}
