package fake_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	convo "github.com/convoapi/convo-go"
	"github.com/convoapi/convo-go/fake"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestErrorIDsAreUniqueAndWellFormed(t *testing.T) {
	s := newServer(t)
	seen := map[string]bool{}
	for i := 0; i < 300; i++ {
		r := get(t, s, "/channels", bearer("bad"))
		var body struct {
			ErrorID   string `json:"errorId"`
			Timestamp string `json:"timestamp"`
		}
		require.NoError(t, json.Unmarshal(r.Body, &body))
		assert.Regexp(t, errorIDPattern, body.ErrorID)
		assert.False(t, seen[body.ErrorID], "duplicate %s", body.ErrorID)
		seen[body.ErrorID] = true
		assert.Equal(t, ts0, body.Timestamp) // on the fake clock
	}
}

// The success envelope is exact; its timestamp is the server's clock.
func TestSuccessEnvelopeExact(t *testing.T) {
	clock := fake.NewManualClock(t0)
	s := newServer(t, fake.WithClock(clock))
	assert.Same(t, clock, s.Clock())
	clock.Advance(1234 * time.Millisecond)
	r := get(t, s, "/channels")
	assert.JSONEq(t, `{"success":true,"data":{"items":[]},"timestamp":"2026-11-22T10:00:01.234Z"}`, string(r.Body))
	assert.Equal(t, "application/json; charset=utf-8", r.Header.Get("Content-Type"))
}

// Every error answer (docs/behaviour.md, Errors) has exactly the seven
// fields, with their types; statusCode equals the HTTP status; timestamp is the clock's reading
// with three fractional digits; message.details exists only for
// INVALID_BUCKET (and fault rules that give details) and is absent, not
// null, elsewhere.
func TestErrorBodyForEveryCode(t *testing.T) {
	clock := fake.NewManualClock(t0.Add(123456789 * time.Nanosecond))
	s, b := newBasic(t, fake.WithClock(clock), fake.WithRateLimit(1, 1000))
	bucketDetails := `{"valid_buckets":["unanswered","never_engaged","unassigned","automation_only"],"opt_in":["unassigned","automation_only"]}`
	tests := []struct {
		method, path string
		body         any
		status       int
		code, msg    string
		details      string
	}{
		{"GET", "/v1/conversations?limit=0", nil, 400, "INVALID_PARAM", "limit must be an integer from 1 to 100", ""},
		{"GET", "/v1/chatapp/contacts/lookup", nil, 400, "MISSING_PARAM", "phone_number is required", ""},
		{"GET", "/v1/conversations/anomalies?include=x", nil, 400, "INVALID_BUCKET", "Unknown bucket: x.", bucketDetails},
		{"GET", "/v1/conversations/nope/messages", nil, 404, "CONVERSATION_NOT_FOUND", "Conversation not found.", ""},
		{"GET", "/v1/chatapp/contacts/lookup?phone_number=5599999999999", nil, 404, "CONTACT_NOT_FOUND", "Contact not found.", ""},
		{"POST", "/v1/chatapp/contacts", map[string]string{"phone_number_id": "x", "phone_number": "5511911112222", "name": "X"}, 404, "CHANNEL_NOT_FOUND", "Channel not found for phone_number_id x.", ""},
		{"POST", "/v1/chatapp/contacts", map[string]string{"phone_number_id": b.chatPNID, "phone_number": b.anaPhone, "name": "X"}, 409, "CONTACT_EXISTS", "A contact with this phone number already exists.", ""},
		{"GET", "/v1/attachments/nope", nil, 404, "MEDIA_NOT_FOUND", "Media not found.", ""},
		{"GET", "/v1/nope", nil, 404, "NOT_FOUND", "", ""},
		{"PUT", "/v1/channels", nil, 405, "METHOD_NOT_ALLOWED", "", ""},
	}
	for _, tc := range tests {
		t.Run(tc.code, func(t *testing.T) {
			r := call(t, s, tc.method, tc.path, tc.body)
			assertError(t, r, tc.status, convo.ErrorCode(tc.code), tc.msg, errPath(tc.path), tc.method, tc.details)
			var env map[string]any
			require.NoError(t, json.Unmarshal(r.Body, &env))
			assert.Equal(t, false, env["success"])
			assert.Equal(t, float64(tc.status), env["statusCode"]) // a JSON number
			assert.Equal(t, "2026-11-22T10:00:00.123Z", env["timestamp"])
			if tc.details == "" {
				assert.NotContains(t, string(r.Body), `"details"`)
			}
		})
	}
	// 401 and 429.
	assertError(t, get(t, s, "/channels", header{}), 401, "UNAUTHORIZED", "Invalid or missing API key.", "/api/v1/channels", "GET", "")
	lim := newServer(t, fake.WithClock(clock), fake.WithRateLimit(1, 1))
	get(t, lim, "/channels")
	assertError(t, get(t, lim, "/channels"), 429, "RATE_LIMITED", "", "/api/v1/channels", "GET", "")
	// A fault rule with a typed nil as details has no details either.
	s.AddFault(fake.Fault{Path: "/channels", Status: 500, Code: convo.CodeCancelFailed, Details: map[string]any(nil), Times: 1})
	r := get(t, s, "/channels")
	assertError(t, r, 500, "CANCEL_FAILED", "", "/api/v1/channels", "GET", "")
	assert.NotContains(t, string(r.Body), `"details"`)
}

// WriteError (cmd/convofake's refusal of a Host header, a handler in front
// of the fake) tells the fake's time in the Date header, as the envelope's
// timestamp does, not the machine's.
func TestWriteErrorDateIsTheFakesClock(t *testing.T) {
	at := time.Date(2020, 2, 3, 4, 5, 6, 0, time.UTC)
	s := newServer(t, fake.WithClock(fake.NewManualClock(at)))
	w := httptest.NewRecorder()
	s.WriteError(w, httptest.NewRequest(http.MethodGet, "/v1/channels", nil), http.StatusForbidden, "HOST_NOT_ALLOWED", "no")
	assert.Equal(t, at.Format(http.TimeFormat), w.Header().Get("Date"))
	var body struct{ Timestamp string }
	require.NoError(t, json.Unmarshal(w.Body.Bytes(), &body))
	assert.Equal(t, "2020-02-03T04:05:06.000Z", body.Timestamp)
}
