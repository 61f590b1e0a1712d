package oascheck_test

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/convoapi/convo-go/internal/oascheck"
)

const (
	okMessages = `{"success":true,"timestamp":"2026-11-22T10:00:00.000Z","data":{"items":[` +
		`{"message_id":"m1","direction":"inbound","type":"image","status":null,"text":null,` +
		`"media":{"media_id":null,"media_status":"unknown","mime_type":"image/png","file_size":FILESIZE,"filename":null},` +
		`"reactions":REACTIONS,"sent_at":"2026-11-22T09:00:00.000Z","delivered_at":null,"read_at":null,"failure_reason":null,"raw":null}],` +
		`"next_cursor":null,"window":{"recent_window_days":30,"since":"2026-10-23T10:00:00.000Z"}}}`
	badLimit = `{"success":false,"statusCode":400,"timestamp":"2026-11-22T10:00:00.000Z","path":"/api/v1/conversations/c1/messages",` +
		`"method":"GET","message":{"error":"INVALID_PARAM","message":"limit must be an integer from 1 to 100"},"errorId":"ERR-ABCDEFGH-1234"}`
)

// TestCheckerNamesTheField runs canned answers through the middleware: a
// right answer passes, a broken field is reported with its path and value,
// a request the document refuses counts apart when it is refused, and a
// route the document lacks must not succeed.
func TestCheckerNamesTheField(t *testing.T) {
	messages := func(fileSize, reactions string) string {
		return strings.NewReplacer("FILESIZE", fileSize, "REACTIONS", reactions).Replace(okMessages)
	}
	cases := []struct {
		name, path string
		status     int
		body       string
		mismatch   string // "" for none
		refused    int
	}{
		{"valid", "/v1/conversations/c1/messages?limit=5", 200, messages("null", "[]"), "", 0},
		{"file_size as a string", "/v1/conversations/c1/messages", 200, messages(`"12"`, "[]"), `field /data/items/0/media/file_size = "12": value must be an integer`, 0},
		{"reactions null", "/api/v1/conversations/c1/messages", 200, messages("12", "null"), "field /data/items/0/reactions = null", 0},
		{"malformed on purpose, refused", "/v1/conversations/c1/messages?limit=0", 400, badLimit, "", 1},
		{"malformed but accepted", "/v1/conversations/c1/messages?limit=0", 200, messages("1", "[]"), "parameter query limit", 0},
		{"undocumented route served", "/v1/templates", 200, `{"success":true}`, "on a route the document does not have", 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, err := oascheck.New()
			require.NoError(t, err)
			h := c.Middleware(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(tc.status)
				_, _ = w.Write([]byte(tc.body))
			}))
			req := httptest.NewRequest(http.MethodGet, tc.path, nil)
			req.Header.Set("Authorization", "Bearer k")
			h.ServeHTTP(httptest.NewRecorder(), req)

			st := c.Stats()
			if tc.mismatch == "" {
				assert.Empty(t, st.Mismatches)
			} else if assert.Len(t, st.Mismatches, 1) {
				assert.Contains(t, st.Mismatches[0], tc.mismatch)
			}
			assert.Equal(t, tc.refused, st.Refused)
		})
	}
}

// recordingTB stands in for the test a validator reports to, to see what it
// reports and when.
type recordingTB struct {
	testing.TB
	errors   []string
	cleanups []func()
}

func (r *recordingTB) Helper()          {}
func (r *recordingTB) Log(...any)       {}
func (r *recordingTB) Cleanup(f func()) { r.cleanups = append(r.cleanups, f) }
func (r *recordingTB) Error(args ...any) {
	r.errors = append(r.errors, fmt.Sprint(args...))
}

func (r *recordingTB) end() {
	for i := len(r.cleanups) - 1; i >= 0; i-- {
		r.cleanups[i]()
	}
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// TestEachSideFailsTheTestWhenItEnds wraps a handler or a client with each
// validator: a mismatch fails the test once, when it ends, and the SDK-side
// transport judges requests, never the canned answers.
func TestEachSideFailsTheTestWhenItEnds(t *testing.T) {
	brokenAnswer := strings.NewReplacer("FILESIZE", `"12"`, "REACTIONS", "[]").Replace(okMessages)
	answer := func(body string) *http.Response {
		return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"application/json"}}, Body: io.NopCloser(strings.NewReader(body))}
	}
	cases := []struct {
		name  string
		query string
		wrap  func(testing.TB) http.RoundTripper
		want  string // "" for no failure
	}{
		{"fake side", "", func(tb testing.TB) http.RoundTripper {
			h := oascheck.Middleware(tb)(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				_, _ = io.WriteString(w, brokenAnswer)
			}))
			return roundTripFunc(func(r *http.Request) (*http.Response, error) {
				rec := httptest.NewRecorder()
				h.ServeHTTP(rec, r)
				return rec.Result(), nil
			})
		}, "answer 200: response body doesn't match schema"},
		{"client side", "", func(tb testing.TB) http.RoundTripper {
			return oascheck.Transport(tb, roundTripFunc(func(*http.Request) (*http.Response, error) { return answer(brokenAnswer), nil }))
		}, "field /data/items/0/media/file_size = \"12\""},
		{"SDK requests: the canned answer is not judged", "", func(tb testing.TB) http.RoundTripper {
			return oascheck.RequestTransport(tb, roundTripFunc(func(*http.Request) (*http.Response, error) { return answer(brokenAnswer), nil }))
		}, ""},
		{"SDK requests: a bad request accepted", "?limit=0", func(tb testing.TB) http.RoundTripper {
			return oascheck.RequestTransport(tb, roundTripFunc(func(*http.Request) (*http.Response, error) { return answer(brokenAnswer), nil }))
		}, "answered 200 to a request the document refuses: parameter query limit"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tb := &recordingTB{TB: t}
			client := &http.Client{Transport: tc.wrap(tb)}
			for range 2 {
				req, err := http.NewRequest(http.MethodGet, "http://mock/v1/conversations/c1/messages"+tc.query, nil)
				require.NoError(t, err)
				req.Header.Set("Authorization", "Bearer k")
				resp, err := client.Do(req)
				require.NoError(t, err)
				body, err := io.ReadAll(resp.Body)
				require.NoError(t, err)
				assert.Equal(t, brokenAnswer, string(body), "the answer passes through unchanged")
			}
			assert.Empty(t, tb.errors, "nothing is reported before the test ends")
			tb.end()
			if tc.want == "" {
				assert.Empty(t, tb.errors)
				return
			}
			require.NotEmpty(t, tb.errors)
			assert.Contains(t, tb.errors[0], "oascheck: mismatch: GET /conversations/{conversation_id}/messages (listMessages): ")
			assert.Contains(t, strings.Join(tb.errors, "\n"), tc.want)
			assert.Equal(t, len(slices.Compact(slices.Sorted(slices.Values(tb.errors)))), len(tb.errors), "each mismatch once, though it happened twice")
		})
	}
}
