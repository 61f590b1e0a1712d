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

	"github.com/convoapi/convo-go/internal/wiretest/oascheck"
)

const (
	okMessages = `{"success":true,"timestamp":"2026-11-22T10:00:00.000Z","data":{"items":[` +
		`{"message_id":"m1","direction":"inbound","type":"image","status":null,"text":null,` +
		`"media":{"media_id":null,"media_status":"unknown","mime_type":"image/png","file_size":FILESIZE,"filename":null},` +
		`"reactions":REACTIONS,"sent_at":"2026-11-22T09:00:00.000Z","delivered_at":null,"read_at":null,"failure_reason":null,"raw":null}],` +
		`"next_cursor":null,"window":{"recent_window_days":30,"since":"2026-10-23T10:00:00.000Z"}}}`
	mediaNull = `{"success":true,"timestamp":"2026-11-22T10:00:00.000Z","data":{"items":[` +
		`{"message_id":"m1","direction":"outbound","type":"text","status":"sent","text":"hi","media":null,` +
		`"reactions":[],"sent_at":"2026-11-22T09:00:00.000Z","delivered_at":null,"read_at":null,"failure_reason":null,"raw":null}],` +
		`"next_cursor":null,"window":{"recent_window_days":30,"since":"2026-10-23T10:00:00.000Z"}}}`
	badLimit = `{"success":false,"statusCode":400,"timestamp":"2026-11-22T10:00:00.000Z","path":"/api/v1/conversations/c1/messages",` +
		`"method":"GET","message":{"error":"INVALID_PARAM","message":"limit must be an integer from 1 to 100"},"errorId":"ERR-ABCDEFGH-1234"}`
)

// recordingTB stands in for the test a validator reports to, to see what it
// reports and when.
type recordingTB struct {
	testing.TB
	logs, errors []string
	cleanups     []func()
}

func (r *recordingTB) Helper()           {}
func (r *recordingTB) Log(args ...any)   { r.logs = append(r.logs, fmt.Sprint(args...)) }
func (r *recordingTB) Error(args ...any) { r.errors = append(r.errors, fmt.Sprint(args...)) }
func (r *recordingTB) Cleanup(f func())  { r.cleanups = append(r.cleanups, f) }
func (r *recordingTB) end() {
	slices.Reverse(r.cleanups)
	for _, f := range r.cleanups {
		f()
	}
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// sides wraps a canned answer with each validator, as a round tripper.
var sides = map[string]func(tb testing.TB, status int, body string) http.RoundTripper{
	"fake": func(tb testing.TB, status int, body string) http.RoundTripper {
		h := oascheck.Middleware(tb)(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(status)
			_, _ = io.WriteString(w, body)
		}))
		return roundTripFunc(func(r *http.Request) (*http.Response, error) {
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, r)
			return rec.Result(), nil
		})
	},
	"client": func(tb testing.TB, status int, body string) http.RoundTripper {
		return oascheck.Transport(tb, canned(status, body))
	},
	"SDK requests": func(tb testing.TB, status int, body string) http.RoundTripper {
		return oascheck.RequestTransport(tb, canned(status, body))
	},
}

func canned(status int, body string) roundTripFunc {
	return func(*http.Request) (*http.Response, error) {
		return &http.Response{StatusCode: status, Header: http.Header{"Content-Type": {"application/json"}}, Body: io.NopCloser(strings.NewReader(body))}, nil
	}
}

// TestMismatchesNameTheFieldAndFailTheTestWhenItEnds sends each exchange
// twice through each side: a right answer passes, a broken field is reported
// with its path and value (except by the SDK-side check, whose answers are
// canned on purpose), a request the document refuses counts apart when it is
// refused, and a route the document lacks must not succeed. Mismatches fail
// the test once each, when it ends; the answer passes through unchanged.
func TestMismatchesNameTheFieldAndFailTheTestWhenItEnds(t *testing.T) {
	messages := func(fileSize, reactions string) string {
		return strings.NewReplacer("FILESIZE", fileSize, "REACTIONS", reactions).Replace(okMessages)
	}
	channels := func(id string) string {
		return `{"success":true,"timestamp":"2026-11-22T10:00:00.000Z","data":{"items":[{"id":"` + id + `","channel":"chatapp","display_name":"Support",` +
			`"provider_identifier":"5511900000001","status":"connected","capabilities":{"message_types":["text"],"max_text_length":4096,` +
			`"max_caption_length":null,"session_window_hours":24,"requires_template_outside_window":true}}]}}`
	}
	cases := []struct {
		name, path string
		status     int
		body       string
		mismatch   string // "" for none
		sdkSees    bool   // whether the SDK-side check reports it too
	}{
		{"valid", "/v1/conversations/c1/messages?limit=5", 200, messages("null", "[]"), "", false},
		{"file_size as a string", "/v1/conversations/c1/messages", 200, messages(`"12"`, "[]"), `(listMessages): answer 200: response body doesn't match schema #/components/schemas/MessagePageEnvelope: field /data/items/0/media/file_size = "12": value must be an integer`, false},
		{"reactions null", "/api/v1/conversations/c1/messages", 200, messages("12", "null"), "field /data/items/0/reactions = null", false},
		{"malformed on purpose, refused", "/v1/conversations/c1/messages?limit=0", 400, badLimit, "", false},
		{"malformed but accepted", "/v1/conversations/c1/messages?limit=0", 200, messages("1", "[]"), "answered 200 to a request the document refuses: parameter query limit", true},
		{"undocumented route served", "/v1/templates", 200, `{"success":true}`, "on a route the document does not have", false},
		// The strict reading (Strict): answers are closed, message types and statuses listed.
		{"media null", "/v1/conversations/c1/messages", 200, mediaNull, "", false},
		{"unknown property", "/v1/conversations/c1/messages", 200, strings.Replace(messages("1", "[]"), `"raw":null`, `"raw":null,"extra":1`, 1),
			`field /data/items/0 = {`, false},
		{"unknown message type", "/v1/conversations/c1/messages", 200, strings.Replace(messages("1", "[]"), `"type":"image"`, `"type":"hologram"`, 1),
			`field /data/items/0/type = "hologram": value is not one of the allowed values`, false},
		{"channel id a UUID", "/v1/channels", 200, channels("0b6f2c1e-1111-4a5b-9c3d-00000000000A"), "", false},
		{"channel id not a UUID", "/v1/channels", 200, channels("acc-1"), `field /data/items/0/id = "acc-1": string doesn't match the format "uuid"`, false},
		{"unknown error code stays open", "/v1/conversations/c1/messages", 503, strings.ReplaceAll(strings.Replace(badLimit, "INVALID_PARAM", "MAINTENANCE", 1), "400", "503"), "", false},
	}
	for _, tc := range cases {
		for side, wrap := range sides {
			t.Run(tc.name+"/"+side, func(t *testing.T) {
				tb := &recordingTB{TB: t}
				client := &http.Client{Transport: wrap(tb, tc.status, tc.body)}
				for range 2 {
					req, err := http.NewRequest(http.MethodGet, "http://mock"+tc.path, nil)
					require.NoError(t, err)
					req.Header.Set("Authorization", "Bearer k")
					resp, err := client.Do(req)
					require.NoError(t, err)
					got, err := io.ReadAll(resp.Body)
					require.NoError(t, err)
					assert.Equal(t, tc.body, string(got), "the answer passes through unchanged")
				}
				assert.Empty(t, tb.errors, "nothing is reported before the test ends")
				tb.end()
				if tc.mismatch == "" || (side == "SDK requests" && !tc.sdkSees) {
					assert.Empty(t, tb.errors)
				} else if assert.NotEmpty(t, tb.errors) {
					assert.Contains(t, tb.errors[0], "oascheck: mismatch: GET ")
					assert.Contains(t, strings.Join(tb.errors, "\n"), tc.mismatch)
					assert.Len(t, slices.Compact(slices.Sorted(slices.Values(tb.errors))), len(tb.errors), "each mismatch once, though it happened twice")
				}
				if tc.status == 400 && assert.Len(t, tb.logs, 1) {
					assert.Contains(t, tb.logs[0], "("+side+") oascheck: 2 exchanges: 0 valid requests, 2 malformed on purpose")
				}
			})
		}
	}
}
