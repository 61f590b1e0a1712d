package oascheck

import (
	"bytes"
	"net/http"
	"testing"

	"github.com/convoapi/convo-go/internal/testkit"
)

// Middleware returns a handler middleware, for fake.WithHandlerMiddleware,
// that validates every request the handler receives and every answer it
// gives. When t ends, each mismatch fails it, and -v logs the tally. Under
// -bench and -fuzz it leaves the handler as it is, so that they measure and
// fuzz the code, not the validator.
func Middleware(t testing.TB) func(http.Handler) http.Handler {
	c := forTest(t, testkit.SideServer)
	if c == nil {
		return func(h http.Handler) http.Handler { return h }
	}
	return c.Middleware
}

// Transport wraps a client's transport so that every request it sends and
// every answer it receives is validated, as [Middleware] does on the
// server's side: for a server the test cannot wrap, such as a convofake
// process.
func Transport(t testing.TB, next http.RoundTripper) http.RoundTripper {
	if c := forTest(t, testkit.SideClient); c != nil {
		return testkit.RoundTripper(next, true, c.Check)
	}
	return next
}

// RequestTransport wraps the transport of a test's SDK client so that every
// request the SDK sends is validated. Answers are not: they are the test's
// canned fixtures, often off the contract on purpose.
func RequestTransport(t testing.TB, next http.RoundTripper) http.RoundTripper {
	if c := forTest(t, testkit.SideSDKRequests); c != nil {
		return testkit.RoundTripper(next, false, c.Check)
	}
	return next
}

// forTest returns a Checker that reports to t when t ends, or nil when
// validation is off (benchmarks, fuzzing). The label names the side in the
// tally.
func forTest(t testing.TB, label string) *Checker {
	t.Helper()
	if testkit.Off() {
		return nil
	}
	c, err := New()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		st := c.Stats()
		if st.Exchanges > 0 {
			t.Log("(" + label + ") " + st.Summary())
		}
		for _, line := range st.Mismatches {
			t.Error("oascheck: mismatch: " + line)
		}
	})
	return c
}

// Middleware wraps a handler so that every exchange is validated.
func (c *Checker) Middleware(next http.Handler) http.Handler {
	return testkit.Handler(next, c.Check)
}

// Check validates one exchange, as recorded by package wirerecord (in this
// process or in a test of the core module), and tallies the outcome.
func (c *Checker) Check(r testkit.Record) {
	req, err := http.NewRequest(r.Method, r.URL, bytes.NewReader(r.Body))
	if err != nil {
		c.tally(func(s *Stats) { s.Exchanges++ })
		c.mismatch("%s %s: the recorded request does not parse: %v", r.Method, r.URL, err)
		return
	}
	req.Header = r.Header
	if req.Header == nil {
		req.Header = http.Header{}
	}
	c.check(exchange{r: req, body: r.Body, complete: r.Complete, status: r.Status, header: r.AnswerHeader, answer: r.Answer, answers: r.Answers})
}
