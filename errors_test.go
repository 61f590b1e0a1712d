package convo

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestErrorEnvelopeIsDecoded(t *testing.T) {
	env := newMock(t)
	body := `{"success":false,"statusCode":400,"timestamp":"2026-11-22T10:04:05.123Z","path":"/api/v1/conversations/anomalies",` +
		`"method":"GET","message":{"error":"INVALID_BUCKET","message":"Unknown bucket: foo",` +
		`"details":{"valid_buckets":["unanswered","never_engaged","unassigned","automation_only"],"opt_in":["unassigned","automation_only"]}},` +
		`"errorId":"ERR-K3J9X2QA-7ZP1"}`
	env.mock.RegisterNoResponder(responder(400, body))
	_, err := env.c.Anomalies.Get(context.Background(), &AnomaliesParams{Include: []Bucket{"foo"}})
	var apiErr *Error
	require.ErrorAs(t, err, &apiErr)
	assert.Equal(t, 400, apiErr.StatusCode)
	assert.Equal(t, CodeInvalidBucket, apiErr.Code)
	assert.Equal(t, "Unknown bucket: foo", apiErr.Message)
	assert.Equal(t, "ERR-K3J9X2QA-7ZP1", apiErr.ErrorID)
	assert.Equal(t, "/api/v1/conversations/anomalies", apiErr.Path)
	assert.Equal(t, "GET", apiErr.Method)
	assert.Equal(t, time.Date(2026, 11, 22, 10, 4, 5, 123e6, time.UTC), apiErr.Timestamp)
	assert.ErrorIs(t, err, ErrInvalidBucket)
	assert.NotErrorIs(t, err, ErrInvalidParam)
	assert.NotErrorIs(t, err, ErrMalformedResponse)
	d, ok := apiErr.InvalidBucket()
	require.True(t, ok)
	assert.Equal(t, []Bucket{BucketUnanswered, BucketNeverEngaged, BucketUnassigned, BucketAutomationOnly}, d.ValidBuckets)
	assert.Equal(t, []Bucket{BucketUnassigned, BucketAutomationOnly}, d.OptIn)
	assert.Equal(t, "convo: 400 INVALID_BUCKET: Unknown bucket: foo (GET /api/v1/conversations/anomalies, errorId ERR-K3J9X2QA-7ZP1, 1 attempt)", err.Error())
	assert.False(t, apiErr.Temporary())
}

func TestEverySentinelMatchesItsCodeOnly(t *testing.T) {
	sentinels := map[ErrorCode]error{
		CodeInvalidParam: ErrInvalidParam, CodeMissingParam: ErrMissingParam, CodeInvalidBucket: ErrInvalidBucket,
		CodeUnauthorized: ErrUnauthorized, CodeConversationNotFound: ErrConversationNotFound,
		CodeContactNotFound: ErrContactNotFound, CodeChannelNotFound: ErrChannelNotFound,
		CodeContactExists: ErrContactExists, CodeRateLimited: ErrRateLimited, CodeCancelFailed: ErrCancelFailed,
		CodeChannelMismatch: ErrChannelMismatch, CodeNoOpenConversation: ErrNoOpenConversation,
		CodeRecipientNotOnChannel: ErrRecipientNotOnChannel, CodeUnsupportedCapability: ErrUnsupportedCapability,
	}
	require.Len(t, sentinels, 14, "the 14 codes of the error envelope")
	for code := range sentinels {
		t.Run(string(code), func(t *testing.T) {
			err := error(&Error{StatusCode: 400, Code: code})
			for other, s := range sentinels {
				assert.Equal(t, other == code, errors.Is(err, s), "errors.Is(%s, Err(%s))", code, other)
			}
			// Wrapped errors still match.
			assert.ErrorIs(t, errors.Join(errors.New("context"), err), sentinels[code])
		})
	}
	assert.Equal(t, ErrorCode("CONTACT_NOT_FOUND"), CodeContactNotFound)
}

func TestBodiesThatAreNotTheEnvelope(t *testing.T) {
	html := `<html><head><title>502 Bad Gateway</title></head><body><center><h1>502 Bad Gateway</h1></center><hr><center>nginx</center></body></html>`
	tests := []struct {
		name       string
		status     int
		body       string
		cause      error
		wantInText string
	}{
		{"proxy HTML 502", 502, html, ErrMalformedResponse, "502 Bad Gateway"},
		{"empty 500", 500, "", ErrMalformedResponse, "500 Internal Server Error"},
		{"truncated JSON 404", 404, `{"success":false,"statusCode":404,"message":{"err`, ErrMalformedResponse, "404 Not Found"},
		{"JSON without code 400", 400, `{"error":"bad"}`, ErrMalformedResponse, "400 Bad Request"},
		{"message as a string 400", 400, `{"success":false,"statusCode":400,"message":"bad"}`, ErrMalformedResponse, "400"},
		{"HTML 200", 200, html, ErrMalformedResponse, "not valid JSON"},
		{"empty 200", 200, "", ErrMalformedResponse, "not valid JSON"},
		{"JSON 200 without envelope", 200, `{"items":[]}`, ErrMalformedResponse, "envelope"},
		{"huge HTML 503", 503, "<html>" + strings.Repeat("x", 1<<20) + "</html>", ErrMalformedResponse, "503"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := newMock(t, WithMaxRetries(0))
			env.mock.RegisterNoResponder(responder(tt.status, tt.body, "Content-Type", "text/html"))
			_, err := env.c.Channels.List(context.Background())
			var apiErr *Error
			require.ErrorAs(t, err, &apiErr)
			assert.Equal(t, tt.status, apiErr.StatusCode)
			assert.Empty(t, apiErr.Code)
			assert.ErrorIs(t, err, tt.cause)
			assert.Contains(t, err.Error(), tt.wantInText)
			assert.LessOrEqual(t, len(apiErr.Body), excerptLimit+3, "the excerpt is bounded")
			assert.LessOrEqual(t, len(err.Error()), 400, "the error text is bounded")
			if tt.body != "" {
				assert.True(t, strings.HasPrefix(tt.body, strings.TrimSuffix(string(apiErr.Body), "...")))
			}
		})
	}
}

func TestSuccessFalseInside2xxIsAnError(t *testing.T) {
	env := newMock(t)
	env.mock.RegisterNoResponder(responder(200, errJSON(404, "CONTACT_NOT_FOUND", "Contact not found")))
	_, err := env.c.Contacts.Lookup(context.Background(), &LookupContactParams{PhoneNumber: "5511987654321"})
	var apiErr *Error
	require.ErrorAs(t, err, &apiErr)
	assert.Equal(t, 404, apiErr.StatusCode)
	assert.ErrorIs(t, err, ErrContactNotFound)
}

func TestResponseSizeCap(t *testing.T) {
	big := okJSON(`{"items":[` + strings.Repeat(`{"id":"x"},`, 200) + `{"id":"y"}]}`)
	tests := []struct {
		name   string
		status int
	}{{"success", 200}, {"error", 400}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := newMock(t, WithMaxResponseBytes(1024))
			env.mock.RegisterNoResponder(responder(tt.status, big))
			_, err := env.c.Channels.List(context.Background())
			var apiErr *Error
			require.ErrorAs(t, err, &apiErr)
			assert.ErrorIs(t, err, ErrResponseTooLarge)
			assert.Equal(t, tt.status, apiErr.StatusCode)
		})
	}
	// Exactly at the cap is fine.
	exact := okJSON(`{"items":[]}`)
	env := newMock(t, WithMaxResponseBytes(int64(len(exact))))
	env.mock.RegisterNoResponder(responder(200, exact))
	_, err := env.c.Channels.List(context.Background())
	require.NoError(t, err)
}

func TestKeyIsRedactedFromServerText(t *testing.T) {
	env := newMock(t)
	env.mock.RegisterNoResponder(responder(401, errJSON(401, "UNAUTHORIZED", "Invalid key "+testKey)))
	_, err := env.c.Channels.List(context.Background())
	require.ErrorIs(t, err, ErrUnauthorized)
	assertNoKey(t, err)
	assert.Contains(t, err.Error(), "[REDACTED]")

	// An HTML page echoing the key: TestKeyNeverLeaksThroughAnyErrorField. A
	// key straddling the excerpt's cut leaves no part of itself behind.
	env = newMock(t, WithMaxRetries(0))
	env.mock.RegisterNoResponder(responder(502, strings.Repeat("x", excerptLimit-5)+testKey+strings.Repeat("y", 100)))
	_, err = env.c.Channels.List(context.Background())
	var apiErr *Error
	require.ErrorAs(t, err, &apiErr)
	assert.NotContains(t, string(apiErr.Body), testKey[:5])
	assert.LessOrEqual(t, len(apiErr.Body), excerptLimit+3)
}

func TestErrorStringForms(t *testing.T) {
	tests := []struct {
		err  *Error
		want string
	}{
		{&Error{StatusCode: 404, Code: CodeContactNotFound, Message: "Contact not found", ErrorID: "ERR-AAAAAAAA-BBBB"},
			"convo: 404 CONTACT_NOT_FOUND: Contact not found (errorId ERR-AAAAAAAA-BBBB)"},
		{&Error{StatusCode: 503, Code: "UNAVAILABLE", Message: "down\nfor now", Method: "GET", Path: "/api/v1/channels?phone=5511", ErrorID: "ERR-1", Attempts: 4},
			"convo: 503 UNAVAILABLE: down for now (GET /api/v1/channels, errorId ERR-1, 4 attempts)"},
		{&Error{StatusCode: 429, Code: CodeRateLimited, Message: "Too many requests", RetryAfter: time.Hour},
			"convo: 429 RATE_LIMITED: Too many requests (retry after 1h0m0s)"},
		{&Error{StatusCode: 502, Body: []byte("<html>")}, `convo: 502 Bad Gateway: body "<html>"`},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, tt.err.Error())
	}
	_, ok := (&Error{Code: CodeInvalidParam}).InvalidBucket()
	assert.False(t, ok)
	_, ok = (&Error{Code: CodeInvalidBucket, Details: []byte(`[1,2]`)}).InvalidBucket()
	assert.False(t, ok)
}

func TestTruncateKeepsUTF8(t *testing.T) {
	s := []byte(strings.Repeat("é", 10)) // 2 bytes each
	out := truncate(s, 5)
	assert.Equal(t, "éé...", string(out))
	assert.Equal(t, "abc", string(truncate([]byte("abc"), 5)))
}

// A 429 without the envelope (a proxy's) is errors.Is ErrRateLimited, the
// documented way to detect rate limiting; a bare 401 is ErrUnauthorized.
// Other statuses match a sentinel by their code only.
func TestBareStatusMatchesItsOnlyCode(t *testing.T) {
	env := newMock(t, WithMaxRetries(0))
	env.mock.RegisterResponder("GET", mockBase+"/channels",
		responder(429, "<html>Too Many Requests</html>", "Retry-After", "7", "Content-Type", "text/html"))
	_, err := env.c.Channels.List(context.Background())
	var apiErr *Error
	require.ErrorAs(t, err, &apiErr)
	assert.Empty(t, apiErr.Code)
	assert.ErrorIs(t, err, ErrRateLimited)
	assert.ErrorIs(t, err, ErrMalformedResponse)
	assert.NotErrorIs(t, err, ErrUnauthorized)
	assert.Equal(t, 7*time.Second, apiErr.RetryAfter)

	assert.ErrorIs(t, &Error{StatusCode: 401}, ErrUnauthorized)
	assert.NotErrorIs(t, &Error{StatusCode: 401}, ErrRateLimited)
	assert.NotErrorIs(t, &Error{StatusCode: 404}, ErrContactNotFound)
	assert.NotErrorIs(t, &Error{StatusCode: 429, Code: "SOMETHING_ELSE"}, ErrRateLimited)
}
