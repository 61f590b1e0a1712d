package fake_test

import (
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/convoapi/convo-go/fake"
)

// The header forms authenticate, the scheme in any case (docs/behaviour.md,
// Connecting), and share the company's bucket; TestUnauthorizedPrecedesEverything
// has the forms that do not authenticate.
func TestRateLimitPerKeyAllFormsTogether(t *testing.T) {
	clock := fake.NewManualClock(t0)
	s := newServer(t, fake.WithClock(clock), fake.WithRateLimit(1, 4))
	other := s.AddCompany("other-key")
	key := s.APIKey()
	forms := []header{bearer(key), {"Authorization", "ApiKey " + key}, {"x-api-key", key}, {"Authorization", "bearer " + key}}
	for _, h := range forms {
		assert.Equal(t, `{"items":[]}`, get(t, s, "/channels", h).Data(t, 200), h)
	}
	// The fifth request, whatever its form, is over the burst.
	r := get(t, s, "/channels", header{"x-api-key", key})
	assertError(t, r, 429, "RATE_LIMITED", "", "/api/v1/channels", "GET", "")
	assert.Equal(t, "1", r.Header.Get("Retry-After"))
	// Another company's key has its own bucket.
	assert.Equal(t, 200, get(t, s, "/channels", bearer(other.APIKey())).Status)
	// The bucket refills on the fake clock: no sleep.
	clock.Advance(time.Second)
	assert.Equal(t, 200, get(t, s, "/channels").Status)
	assert.Equal(t, 429, get(t, s, "/channels").Status)
}

func TestRateLimitRetryAfterWholeSeconds(t *testing.T) {
	clock := fake.NewManualClock(t0)
	s := newServer(t, fake.WithClock(clock), fake.WithRateLimit(0.25, 1)) // one token every 4 s
	require.Equal(t, 200, get(t, s, "/channels").Status)
	r := get(t, s, "/channels")
	require.Equal(t, 429, r.Status)
	assert.Equal(t, "4", r.Header.Get("Retry-After"))
	clock.Advance(2500 * time.Millisecond)
	r = get(t, s, "/channels")
	assert.Equal(t, "2", r.Header.Get("Retry-After")) // 1.5 s rounded up
}

func TestAnomalyRateLimitOnePassPerDay(t *testing.T) {
	clock := fake.NewManualClock(t0)
	s := newServer(t, fake.WithClock(clock), fake.WithAnomalyRateLimit(1, 24*time.Hour))
	assert.Equal(t, 200, get(t, s, "/conversations/anomalies").Status)
	r := get(t, s, "/conversations/anomalies")
	assertError(t, r, 429, "RATE_LIMITED", "", "/api/v1/conversations/anomalies", "GET", "")
	assert.Equal(t, strconv.Itoa(24*3600), r.Header.Get("Retry-After"))
	// Other endpoints are not affected.
	assert.Equal(t, 200, get(t, s, "/channels").Status)
	clock.Advance(24 * time.Hour)
	assert.Equal(t, 200, get(t, s, "/conversations/anomalies").Status)
}

func TestUnauthorizedBeforeRateLimitAndAfterRouting(t *testing.T) {
	s := newServer(t, fake.WithRateLimit(1, 1))
	// Unknown route: 404 even without a key.
	assertError(t, get(t, s, "/nothing", header{}), 404, "NOT_FOUND", "", "/api/v1/nothing", "GET", "")
	// Bad keys do not consume the company's bucket.
	for i := 0; i < 3; i++ {
		assert.Equal(t, http.StatusUnauthorized, get(t, s, "/channels", bearer("bad")).Status)
	}
	assert.Equal(t, 200, get(t, s, "/channels").Status)
}

// Two values for the key — two Authorization headers, two x-api-key
// headers, or both forms with different keys — are 401 with a text saying
// why, even when one of them is the right key: the fake never picks one
// (docs/behaviour.md, Strict input). Both forms with the same key are one key.
func TestTwoKeysAreRefused(t *testing.T) {
	s := newServer(t)
	key := s.APIKey()
	const (
		twoAuth = "Invalid or missing API key: the Authorization header is given more than once; send the key once."
		twoX    = "Invalid or missing API key: the x-api-key header is given more than once; send the key once."
		both    = "Invalid or missing API key: Authorization and x-api-key give different keys; send the key once."
	)
	tests := []struct {
		name    string
		headers []header
		msg     string
	}{
		{"two Authorization", []header{bearer(key), {"+Authorization", "Bearer other"}}, twoAuth},
		{"two Authorization, same key", []header{bearer(key), {"+Authorization", "Bearer " + key}}, twoAuth},
		{"two Authorization, wrong first", []header{bearer("other"), {"+Authorization", "ApiKey " + key}}, twoAuth},
		{"two x-api-key", []header{{"x-api-key", key}, {"+x-api-key", "other"}}, twoX},
		{"Authorization and another x-api-key", []header{bearer(key), {"x-api-key", "other"}}, both},
		{"x-api-key and another Authorization", []header{{"x-api-key", key}, {"Authorization", "ApiKey other"}}, both},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := callRaw(t, s, "GET", "/v1/channels", nil, tc.headers...)
			assertError(t, r, 401, "UNAUTHORIZED", tc.msg, "/api/v1/channels", "GET", "")
		})
	}
	same := callRaw(t, s, "GET", "/v1/channels", nil, bearer(key), header{"x-api-key", key})
	assert.Equal(t, 200, same.Status, "%s", same.Body)
}

// Every operation of api/openapi.yaml can answer 401: without a valid
// header key, every authenticated route answers 401 UNAUTHORIZED,
// whatever else is wrong with the request (bad parameters, bad body,
// oversized body, unknown ids), and a key anywhere but the three headers
// authenticates nothing.
func TestUnauthorizedPrecedesEverything(t *testing.T) {
	s := newServer(t)
	seedBasic(t, s)
	key := s.APIKey()
	big := `{"phone_number":"` + strings.Repeat("1", 1<<20) + `"}`
	tests := []struct {
		name, method, path, body string
		headers                  []header
	}{
		{"no key, bad limit", "GET", "/v1/conversations/x/messages?limit=abc", "", []header{{}}},
		{"no key, forged cursor", "GET", "/v1/conversations?cursor=forged", "", []header{{}}},
		{"no key, bad bucket", "GET", "/v1/conversations/anomalies?include=bogus", "", []header{{}}},
		{"no key, unknown media", "GET", "/v1/attachments/nope", "", []header{{}}},
		{"no key, missing phone", "GET", "/v1/chatapp/contacts/lookup", "", []header{{}}},
		{"no key, malformed JSON", "POST", "/v1/chatapp/contacts", `{"x":`, []header{{"Content-Type", "application/json"}}},
		{"no key, wrong content type", "PATCH", "/v1/chatapp/contacts/custom-fields", `{}`, []header{{"Content-Type", "text/plain"}}},
		{"no key, oversized body", "POST", "/v1/chatapp/sequences/cancel", big, []header{{"Content-Type", "application/json"}}},
		{"no key, DELETE with body", "DELETE", "/v1/chatapp/contacts/tags", `{"tag_ids":"x"}`, []header{{"Content-Type", "application/json"}}},
		{"key in query", "GET", "/v1/channels?api_key=" + key + "&apiKey=" + key + "&key=" + key + "&x-api-key=" + key, "", []header{{}}},
		{"key in body", "POST", "/v1/chatapp/sequences/cancel", `{"api_key":"` + key + `","apiKey":"` + key + `","phone_number":"5511987654321"}`, []header{{"Content-Type", "application/json"}}},
		{"key in another header", "GET", "/v1/channels", "", []header{{"Api-Key", key}, {"X-Auth-Token", key}}},
		{"key as Basic", "GET", "/v1/channels", "", []header{{"Authorization", "Basic " + key}}},
		{"key as bare Authorization", "GET", "/v1/channels", "", []header{{"Authorization", key}}},
		{"wrong key, valid request", "GET", "/v1/channels", "", []header{bearer(key + "x")}},
		{"key prefix", "GET", "/v1/channels", "", []header{bearer(key[:len(key)-1])}},
		{"scheme without key", "GET", "/v1/channels", "", []header{{"Authorization", "Bearer"}}},
		{"empty x-api-key", "GET", "/v1/channels", "", []header{{"x-api-key", ""}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var body any
			if tc.body != "" {
				body = tc.body
			}
			r := callRaw(t, s, tc.method, tc.path, body, tc.headers...)
			assertError(t, r, 401, "UNAUTHORIZED", "Invalid or missing API key.", errPath(tc.path), tc.method, "")
		})
	}
}
