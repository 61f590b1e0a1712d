// This file (formerly package wirerecord) records the HTTP exchanges of the tests, so that they
// can be validated against api/openapi.yaml by the test module in
// internal/wiretest. The validator (kin-openapi) lives there, in a module of
// its own, so that the core module, which users require, does not require
// it; this package uses the standard library only.
//
// A test switches recording on where it starts a fake or a client, as it
// would switch on a validator:
//
//	s := fake.New(t, fake.WithHandlerMiddleware(testkit.Middleware(t)))
//
// When the environment variable CONVO_WIRE_RECORD names a directory, every
// request and answer is appended there, one JSON [Record] a line, in a file
// per test process; otherwise (and under -bench and -fuzz) the handler or
// transport is returned as it is. .ci/run sets it for the core's tests, then
// runs internal/wiretest, which validates every recorded exchange and fails
// naming the package, the test, the operation and the field.

package testkit

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"testing/iotest"

	"github.com/convoapi/convo-go/internal/statuswriter"
)

// EnvDir is the environment variable naming the directory the exchanges
// are recorded in.
const EnvDir = "CONVO_WIRE_RECORD"

// MaxCapture bounds what is read of a request or an answer for validation;
// the fake refuses request bodies over 1 MiB anyway.
const MaxCapture = 4 << 20

// Sides of an exchange, as recorded.
const (
	SideServer      = "fake"         // seen by a handler (Middleware): its answers are validated
	SideClient      = "client"       // seen by a client's transport (Transport): its answers are validated
	SideSDKRequests = "SDK requests" // the requests of an SDK client on canned answers (RequestTransport)
)

// Record is one exchange: a request and its answer, as a handler or a
// transport saw them.
type Record struct {
	Package  string      `json:"package"` // the test's package directory, relative to the module ("." for the root)
	Test     string      `json:"test"`    // the test that recorded it (t.Name())
	Side     string      `json:"side"`
	Method   string      `json:"method"`
	URL      string      `json:"url"` // as the handler or the transport saw it: a path and query, or a whole URL
	Header   http.Header `json:"header,omitempty"`
	Body     []byte      `json:"body,omitempty"`
	Complete bool        `json:"complete"` // whether Body is all of the request body
	// Status is the answer's status, 0 when there was none (a fault rule
	// dropped the connection, or the answer was cut).
	Status       int         `json:"status"`
	AnswerHeader http.Header `json:"answer_header,omitempty"`
	Answer       []byte      `json:"answer,omitempty"`
	// Answers says whether the answer is to be validated: not for the
	// canned fixtures a test answers an SDK client with.
	Answers bool `json:"answers"`
}

// Middleware returns a handler middleware, for fake.WithHandlerMiddleware,
// that records every request the handler receives and every answer it gives.
func Middleware(t testing.TB) func(http.Handler) http.Handler {
	sink := forTest(t, SideServer)
	if sink == nil {
		return func(h http.Handler) http.Handler { return h }
	}
	return func(h http.Handler) http.Handler { return Handler(h, sink) }
}

// Transport wraps a client's transport so that every request it sends and
// every answer it receives is recorded, as Middleware does on the server's
// side: for a server the test cannot wrap, such as a convofake process.
func Transport(t testing.TB, next http.RoundTripper) http.RoundTripper {
	if sink := forTest(t, SideClient); sink != nil {
		return RoundTripper(next, true, sink)
	}
	return next
}

// RequestTransport wraps the transport of a test's SDK client so that every
// request the SDK sends is recorded; its answers are marked not to be
// validated: they are the test's canned fixtures, often off the contract on
// purpose.
func RequestTransport(t testing.TB, next http.RoundTripper) http.RoundTripper {
	if sink := forTest(t, SideSDKRequests); sink != nil {
		return RoundTripper(next, false, sink)
	}
	return next
}

// Off reports whether validation is off in this process: under -bench and
// -fuzz, which measure and fuzz the code, not the validator.
func Off() bool {
	for _, name := range []string{"test.bench", "test.fuzz"} {
		if f := flag.Lookup(name); f != nil && f.Value.String() != "" {
			return true
		}
	}
	return false
}

// forTest returns the sink that writes t's exchanges to the recording, or
// nil when recording is off. A write that fails fails t when it ends.
func forTest(t testing.TB, side string) func(Record) {
	t.Helper()
	dir := os.Getenv(EnvDir)
	if dir == "" || Off() {
		return nil
	}
	w, err := processFile(dir)
	if err != nil {
		t.Fatalf("wirerecord: %s=%s: %v", EnvDir, dir, err)
	}
	var mu sync.Mutex
	var failed error
	t.Cleanup(func() {
		mu.Lock()
		defer mu.Unlock()
		if failed != nil {
			t.Errorf("wirerecord: recording an exchange to %s: %v", w.f.Name(), failed)
		}
	})
	test := t.Name()
	return func(r Record) {
		r.Package, r.Test, r.Side = w.pkg, test, side
		if !inAPI(r.URL) { // temporary attachment files, the admin API: not validated, and can be large
			r.Body, r.Answer = nil, nil
		}
		if err := w.write(r); err != nil {
			mu.Lock()
			failed = errors.Join(failed, err)
			mu.Unlock()
		}
	}
}

// inAPI reports whether a request's address has a /v1 segment, as every
// route of the API has (under /v1 or /api/v1, behind any base URL).
func inAPI(raw string) bool {
	u, err := url.Parse(raw)
	return err != nil || strings.Contains(u.EscapedPath()+"/", "/v1/")
}

// file is the recording of this process: one JSON record a line.
type file struct {
	mu  sync.Mutex
	f   *os.File
	pkg string
}

func (w *file) write(r Record) error {
	line, err := json.Marshal(r)
	if err != nil {
		return err
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	_, err = w.f.Write(append(line, '\n'))
	return err
}

var (
	filesMu sync.Mutex
	files   = map[string]*file{} // by directory
)

// processFile opens, once per directory, this process's file in dir, named
// after the test's package and the process id.
func processFile(dir string) (*file, error) {
	filesMu.Lock()
	defer filesMu.Unlock()
	if w := files[dir]; w != nil {
		return w, nil
	}
	pkg, err := packageDir()
	if err != nil {
		return nil, err
	}
	name := strings.NewReplacer("/", "_", ".", "root").Replace(pkg)
	f, err := os.OpenFile(filepath.Join(dir, fmt.Sprintf("%s.%d.jsonl", name, os.Getpid())), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	w := &file{f: f, pkg: pkg}
	files[dir] = w
	return w, nil
}

// packageDir is the working directory (a test runs in its package's)
// relative to the module's root, the nearest directory above that holds a
// go.mod.
func packageDir() (string, error) {
	wd, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for root := wd; ; root = filepath.Dir(root) {
		if _, err := os.Stat(filepath.Join(root, "go.mod")); err == nil {
			rel, err := filepath.Rel(root, wd)
			return filepath.ToSlash(rel), err
		}
		if filepath.Dir(root) == root {
			return "", fmt.Errorf("no go.mod above %s", wd)
		}
	}
}

// Read returns the records of every file in dir.
func Read(dir string) ([]Record, error) {
	names, err := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	if err != nil {
		return nil, err
	}
	var out []Record
	for _, name := range names {
		f, err := os.Open(name)
		if err != nil {
			return nil, err
		}
		dec := json.NewDecoder(f)
		for {
			var r Record
			if err := dec.Decode(&r); errors.Is(err, io.EOF) {
				break
			} else if err != nil {
				f.Close()
				return nil, fmt.Errorf("%s: %w", name, err)
			}
			out = append(out, r)
		}
		f.Close()
	}
	return out, nil
}

// Handler wraps a handler so that sink receives every exchange: the
// request as received and the answer as given, once the handler returns
// (or panics: a fault rule that drops the connection leaves Status 0).
func Handler(next http.Handler, sink func(Record)) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		x := Record{Method: r.Method, URL: r.URL.String(), Header: r.Header.Clone(), Answers: true}
		x.Body, x.Complete, r.Body = capture(r.Body)
		rec := &recorder{Writer: statuswriter.Writer{ResponseWriter: w}}
		answered := false
		defer func() {
			if answered { // else a fault rule hijacked the connection and panicked
				x.Status, x.AnswerHeader, x.Answer = rec.Status, rec.Header().Clone(), rec.body.Bytes()
			}
			sink(x)
		}()
		next.ServeHTTP(rec, r)
		answered = true
	})
}

// RoundTripper wraps a transport so that sink receives every exchange;
// answers says whether the answers are to be validated (and so read).
func RoundTripper(next http.RoundTripper, answers bool, sink func(Record)) http.RoundTripper {
	return roundTripper{next: next, answers: answers, sink: sink}
}

type roundTripper struct {
	next    http.RoundTripper
	answers bool
	sink    func(Record)
}

func (rt roundTripper) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context()) // a RoundTripper must not change the caller's request
	x := Record{Method: r.Method, URL: r.URL.String(), Header: r.Header.Clone(), Answers: rt.answers}
	x.Body, x.Complete, r.Body = capture(r.Body)
	resp, err := rt.next.RoundTrip(r)
	if err == nil {
		x.Status, x.AnswerHeader = resp.StatusCode, resp.Header.Clone()
		if rt.answers {
			var whole bool
			x.Answer, whole, resp.Body = capture(resp.Body)
			if !whole { // cut by a fault rule, or too long to judge
				x.Status = 0
			}
		}
	}
	rt.sink(x)
	return resp, err
}

// capture reads a body for validation and returns a body that reads the same
// bytes, then whatever the original had left or its error.
func capture(rc io.ReadCloser) (b []byte, complete bool, again io.ReadCloser) {
	if rc == nil || rc == http.NoBody {
		return nil, true, rc
	}
	b, err := io.ReadAll(io.LimitReader(rc, MaxCapture))
	var rest io.Reader = rc
	if err != nil {
		rest = iotest.ErrReader(err)
	}
	return b, err == nil && len(b) < MaxCapture, readCloser{io.MultiReader(bytes.NewReader(b), rest), rc}
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
	if w.body.Len()+len(b) <= MaxCapture {
		w.body.Write(b)
	}
	return w.Writer.Write(b)
}
