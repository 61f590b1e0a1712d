package fake_test

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/convoapi/convo-go/fake"
)

func TestAuthHeaderForms(t *testing.T) {
	s := newServer(t)
	key := s.APIKey()
	tests := []struct {
		name    string
		headers []header
		status  int
	}{
		{"bearer", []header{{"Authorization", "Bearer " + key}}, 200},
		{"apikey scheme", []header{{"Authorization", "ApiKey " + key}}, 200},
		{"x-api-key", []header{{"x-api-key", key}}, 200},
		{"scheme case-insensitive", []header{{"Authorization", "bearer " + key}}, 200},
		{"missing", []header{{}}, 401},
		{"wrong key", []header{bearer("nope")}, 401},
		{"key prefix", []header{bearer(key[:len(key)-1])}, 401},
		{"unknown scheme", []header{{"Authorization", "Basic " + key}}, 401},
		{"scheme without key", []header{{"Authorization", "Bearer"}}, 401},
		{"empty x-api-key", []header{{"x-api-key", ""}}, 401},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := get(t, s, "/channels", tc.headers...)
			if tc.status == 200 {
				assert.Equal(t, `{"items":[]}`, r.Data(t, 200))
				return
			}
			assertError(t, r, 401, "UNAUTHORIZED", "Invalid or missing API key.", "/api/v1/channels", "GET", "")
		})
	}
}

func TestKeyInQueryOrBodyAuthenticatesNothing(t *testing.T) {
	s := newServer(t)
	q := url.Values{"api_key": {s.APIKey()}, "apiKey": {s.APIKey()}, "x-api-key": {s.APIKey()}}
	r := get(t, s, "/channels?"+q.Encode(), header{})
	assertError(t, r, 401, "UNAUTHORIZED", "Invalid or missing API key.", "/api/v1/channels", "GET", "")

	r = call(t, s, "POST", "/v1/chatapp/sequences/cancel", map[string]string{"api_key": s.APIKey(), "phone_number": "5511987654321"}, header{})
	assertError(t, r, 401, "UNAUTHORIZED", "Invalid or missing API key.", "/api/v1/chatapp/sequences/cancel", "POST", "")
}

func TestRateLimitPerKeyAllFormsTogether(t *testing.T) {
	clock := fake.NewManualClock(t0)
	s := newServer(t, fake.WithClock(clock), fake.WithRateLimit(1, 3))
	other := s.AddCompany("other-key")
	key := s.APIKey()
	forms := []header{bearer(key), {"Authorization", "ApiKey " + key}, {"x-api-key", key}}
	for _, h := range forms {
		assert.Equal(t, 200, get(t, s, "/channels", h).Status)
	}
	// The fourth request, whatever its form, is over the burst.
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

// Spec §5 rules 2 and 4, §4 ("every endpoint ... can answer 401"): without
// a valid header key, every authenticated route answers 401 UNAUTHORIZED,
// whatever else is wrong with the request (bad parameters, bad body,
// oversized body, unknown ids), and a key anywhere but the three headers
// authenticates nothing.
func TestAuditUnauthorizedPrecedesEverything(t *testing.T) {
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
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var body any
			if tc.body != "" {
				body = tc.body
			}
			headers := append([]header{}, tc.headers...)
			r := callRaw(t, s, tc.method, tc.path, body, headers...)
			p := tc.path
			if i := strings.IndexByte(p, '?'); i >= 0 {
				p = p[:i]
			}
			assertError(t, r, 401, "UNAUTHORIZED", "Invalid or missing API key.", "/api"+p, tc.method, "")
		})
	}
}
