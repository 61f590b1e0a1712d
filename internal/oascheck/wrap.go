package oascheck

import (
	"bytes"
	"flag"
	"io"
	"net/http"
	"testing"
	"testing/iotest"

	"github.com/convoapi/convo-go/internal/statuswriter"
)

// Middleware returns a handler middleware, for fake.WithHandlerMiddleware,
// that validates every request the handler receives and every answer it
// gives. When t ends, each mismatch fails it, and -v logs the tally. Under
// -bench and -fuzz it leaves the handler as it is, so that they measure and
// fuzz the code, not the validator.
func Middleware(t testing.TB) func(http.Handler) http.Handler {
	c := forTest(t, "fake")
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
	if c := forTest(t, "client"); c != nil {
		return roundTripper{c: c, next: next, answers: true}
	}
	return next
}

// RequestTransport wraps the transport of a test's SDK client so that every
// request the SDK sends is validated. Answers are not: they are the test's
// canned fixtures, often off the contract on purpose.
func RequestTransport(t testing.TB, next http.RoundTripper) http.RoundTripper {
	if c := forTest(t, "SDK requests"); c != nil {
		return roundTripper{c: c, next: next}
	}
	return next
}

// forTest returns a Checker that reports to t when t ends, or nil when
// validation is off (benchmarks, fuzzing). The label names the side in the
// tally.
func forTest(t testing.TB, label string) *Checker {
	t.Helper()
	for _, name := range []string{"test.bench", "test.fuzz"} {
		if f := flag.Lookup(name); f != nil && f.Value.String() != "" {
			return nil
		}
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
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		x := exchange{r: r, answers: true}
		x.body, x.complete, r.Body = capture(r.Body)
		rec := &recorder{Writer: statuswriter.Writer{ResponseWriter: w}}
		answered := false
		defer func() {
			if answered { // else a fault rule hijacked the connection and panicked
				x.status, x.header, x.answer = rec.Status, rec.Header(), rec.body.Bytes()
			}
			c.check(x)
		}()
		next.ServeHTTP(rec, r)
		answered = true
	})
}

type roundTripper struct {
	c       *Checker
	next    http.RoundTripper
	answers bool
}

func (rt roundTripper) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context()) // a RoundTripper must not change the caller's request
	x := exchange{r: r, answers: rt.answers}
	x.body, x.complete, r.Body = capture(r.Body)
	resp, err := rt.next.RoundTrip(r)
	if err == nil {
		x.status, x.header = resp.StatusCode, resp.Header
		if rt.answers {
			var whole bool
			x.answer, whole, resp.Body = capture(resp.Body)
			if !whole { // cut by a fault rule, or too long to judge
				x.status = 0
			}
		}
	}
	rt.c.check(x)
	return resp, err
}

// capture reads a body for validation and returns a body that reads the same
// bytes, then whatever the original had left or its error.
func capture(rc io.ReadCloser) (b []byte, complete bool, again io.ReadCloser) {
	if rc == nil || rc == http.NoBody {
		return nil, true, rc
	}
	b, err := io.ReadAll(io.LimitReader(rc, maxCapture))
	var rest io.Reader = rc
	if err != nil {
		rest = iotest.ErrReader(err)
	}
	return b, err == nil && len(b) < maxCapture, readCloser{io.MultiReader(bytes.NewReader(b), rest), rc}
}

type readCloser struct {
	io.Reader
	io.Closer
}

// recorder passes the answer through and keeps a copy of status and body.
type recorder struct {
	statuswriter.Writer
	body bytes.Buffer
}

func (w *recorder) Write(b []byte) (int, error) {
	if w.body.Len()+len(b) <= maxCapture {
		w.body.Write(b)
	}
	return w.Writer.Write(b)
}
