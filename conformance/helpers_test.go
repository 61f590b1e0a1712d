package conformance_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"

	"github.com/convoapi/convo-go/fake"
	"github.com/convoapi/convo-go/internal/keyforms"
	"github.com/stretchr/testify/require"
)

// alteration changes one thing in a server's acceptance (req) or answers
// (resp, on JSON answers, with the status it may change).
type alteration struct {
	name string
	want string // the check that must fail; "stopped" for a run that must stop
	req  func(r *http.Request)
	resp func(r *http.Request, status *int, body map[string]any)
}

// alteringProxy serves h on a loopback listener, applying alt to each
// request and answer; alt may be zero (a faithful proxy).
func alteringProxy(t *testing.T, h http.Handler, alt alteration) *httptest.Server {
	t.Helper()
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if alt.req != nil {
			alt.req(r)
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, r)
		status, body := rec.Code, rec.Body.Bytes()
		if alt.resp != nil && json.Valid(body) {
			dec := json.NewDecoder(bytes.NewReader(body))
			dec.UseNumber()
			var m map[string]any
			if dec.Decode(&m) == nil {
				alt.resp(r, &status, m)
				var b bytes.Buffer
				enc := json.NewEncoder(&b)
				enc.SetEscapeHTML(false)
				require.NoError(t, enc.Encode(m))
				body = b.Bytes()
			}
		}
		maps.Copy(w.Header(), rec.Header())
		w.Header().Set("Content-Length", strconv.Itoa(len(body)))
		w.WriteHeader(status)
		_, _ = w.Write(body)
	}))
	t.Cleanup(ts.Close)
	return ts
}

// demoHandler is a fake with the demo data, served by no listener of its
// own.
func demoHandler(t *testing.T, opts ...fake.Option) *fake.Server {
	t.Helper()
	s, err := fake.NewHandler(append([]fake.Option{fake.WithSeed(fake.DemoSeed())}, opts...)...)
	require.NoError(t, err)
	return s
}

// JSON navigation for the alterations.

func data(body map[string]any) map[string]any { d, _ := body["data"].(map[string]any); return d }

func items(body map[string]any) []any { a, _ := data(body)["items"].([]any); return a }

func eachItem(body map[string]any, fn func(m map[string]any)) {
	for _, v := range items(body) {
		if m, ok := v.(map[string]any); ok {
			fn(m)
		}
	}
}

func errMessage(body map[string]any) map[string]any {
	m, _ := body["message"].(map[string]any)
	return m
}

func reverse(a []any) {
	for i, j := 0, len(a)-1; i < j; i, j = i+1, j-1 {
		a[i], a[j] = a[j], a[i]
	}
}

// echoKey adds key, in every escaping, to each JSON answer, and to the
// text of each error.
func echoKey(key string) func(*http.Request, *int, map[string]any) {
	return func(_ *http.Request, _ *int, b map[string]any) {
		for name, esc := range keyforms.Escapings {
			b["echo "+name] = esc(key)
		}
		if m := errMessage(b); m != nil {
			m["message"] = fmt.Sprint(m["message"], " key=", key)
		}
	}
}
