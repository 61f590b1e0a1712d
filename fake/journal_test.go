package fake_test

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	convo "github.com/convoapi/convo-go"
	"github.com/convoapi/convo-go/fake"
	"github.com/convoapi/convo-go/internal/testkit"
)

// The journal records each request (method, prefix, path relative to the
// base URL, company, query, time on the server's clock, status, body) and
// redacts every company's key wherever it appears: the request's own and
// another company's, in the query, the body and any header.
func TestJournalRecordsAndRedacts(t *testing.T) {
	s := newServer(t)
	other := s.AddCompany("other-company-key").APIKey()
	get(t, s, "/channels?x=1", header{"Authorization", "Bearer " + s.APIKey()})
	get(t, s, "/channels", header{"x-api-key", s.APIKey()})
	call(t, s, "POST", "/api/v1/chatapp/sequences/cancel", map[string]string{"phone_number": "5511987654321"}, header{"Authorization", "ApiKey " + s.APIKey()})
	call(t, s, http.MethodPost, "/v1/chatapp/sequences/cancel?k="+s.APIKey()+"&o=x"+other,
		`{"phone_number":"1","note":"`+s.APIKey()+`","also":"`+other+`"}`, header{"X-Echo", "a " + other})
	reqs := s.Requests()
	require.Len(t, reqs, 4)
	assert.Equal(t, "GET", reqs[0].Method)
	assert.Equal(t, "/channels", reqs[0].Path)
	assert.Equal(t, "/v1", reqs[0].Prefix)
	assert.Equal(t, "/api/v1", reqs[2].Prefix)
	assert.Equal(t, s.Company().ID(), reqs[0].CompanyID)
	assert.Equal(t, "1", reqs[0].Query.Get("x"))
	assert.Equal(t, "Bearer [REDACTED]", reqs[0].Header.Get("Authorization"))
	assert.Equal(t, http.StatusOK, reqs[0].Status)
	assert.Equal(t, t0, reqs[0].Time)
	assert.Equal(t, "[REDACTED]", reqs[1].Header.Get("X-Api-Key"))
	assert.Equal(t, "ApiKey [REDACTED]", reqs[2].Header.Get("Authorization"))
	assert.JSONEq(t, `{"phone_number":"5511987654321"}`, string(reqs[2].Body))
	assert.Equal(t, 404, reqs[2].Status)
	for _, key := range []string{s.APIKey(), other} {
		assert.NotContains(t, string(reqs[3].Body), key)
	}
	assert.Equal(t, fake.Redacted, reqs[3].Query.Get("k"))
	assert.Equal(t, "x"+fake.Redacted, reqs[3].Query.Get("o"))
	assert.Equal(t, "a "+fake.Redacted, reqs[3].Header.Get("X-Echo"))
	s.ClearRequests()
	assert.Empty(t, s.Requests())
}

// No key survives in any field of the journal in any escaping: a key as a
// path id (as sent or percent-escaped), as a query parameter's name, or
// inside a JSON string or field name with \u escapes.
func TestJournalRedactsKeysInAnyEscaping(t *testing.T) {
	s := newServer(t)
	key := s.APIKey()
	other := s.AddCompany("other-company-key").APIKey()
	esc := func(k string) string { return fmt.Sprintf(`\u%04x`, k[0]) + k[1:] }
	allEsc := func(k string) string {
		var b strings.Builder
		for _, c := range k {
			fmt.Fprintf(&b, `\u%04X`, c)
		}
		return b.String()
	}
	pct := func(k string) string { return fmt.Sprintf("%%%02X", k[0]) + k[1:] }
	get(t, s, "/conversations/"+key+"/messages")
	get(t, s, "/conversations/"+pct(other)+"/messages")
	get(t, s, "/conversations/x"+other+"y/messages")
	get(t, s, "/channels?"+key+"=1&"+pct(other)+"=2", bearer(key), header{other, "x"})
	call(t, s, http.MethodPost, "/v1/chatapp/sequences/cancel",
		`{"phone_number":"5511987654321","note":"`+esc(key)+`","also":"a `+allEsc(other)+` b","`+esc(other)+`":1}`)
	reqs := s.Requests()
	require.Len(t, reqs, 5)
	for i, r := range reqs {
		for _, k := range []string{key, other} {
			assert.NotContains(t, journalText(t, r), strings.ToLower(k), "request %d", i)
		}
	}
	assert.Equal(t, "/conversations/"+fake.Redacted+"/messages", reqs[0].Path)
	assert.Equal(t, "/conversations/x"+fake.Redacted+"y/messages", reqs[2].Path)
	assert.Equal(t, []string{"1", "2"}, reqs[3].Query[fake.Redacted]) // both names are keys
	assert.Equal(t, []string{"x"}, reqs[3].Header[fake.Redacted], "a header named as a key, whatever its case")
	assert.JSONEq(t, `{"phone_number":"5511987654321","note":"[REDACTED]","also":"a [REDACTED] b","[REDACTED]":1}`, string(reqs[4].Body))
}

// journalText is every field of r in every decoding a reader may apply:
// as recorded, path-unescaped, and the body's JSON strings unescaped.
func journalText(t *testing.T, r fake.Request) string {
	t.Helper()
	path, err := url.PathUnescape(r.Path)
	require.NoError(t, err)
	var body any
	_ = json.Unmarshal(r.Body, &body)
	return strings.ToLower(fmt.Sprint(r.Path, path, r.Query, r.Header, string(r.Body), body)) // header names are canonicalized
}

func TestJournalLimit(t *testing.T) {
	s := newServer(t, fake.WithJournalLimit(3))
	for _, p := range []string{"/a", "/b", "/c", "/d", "/e"} {
		get(t, s, p)
	}
	var paths []string
	for _, r := range s.Requests() {
		paths = append(paths, r.Path)
	}
	assert.Equal(t, []string{"/c", "/d", "/e"}, paths)
}

// readSpy is a request body that records whether the server read it.
type readSpy struct {
	read bool
	r    io.Reader
}

func (b *readSpy) Read(p []byte) (int, error) { b.read = true; return b.r.Read(p) }

// The key is checked before the body is read: a request without a valid key
// has its body neither read nor journaled, whatever its route.
func TestBodyUnreadWithoutAValidKey(t *testing.T) {
	s, err := fake.NewHandler(fake.WithClock(fake.NewManualClock(t0)))
	require.NoError(t, err)
	tests := []struct {
		name, target, key string
		status            int
		read              bool
	}{
		{"no key", "/v1/chatapp/contacts", "", 401, false},
		{"wrong key", "/v1/chatapp/contacts", "nope", 401, false},
		{"unknown route without key", "/v1/nope", "", 404, false},
		{"valid key", "/v1/chatapp/contacts", fake.DefaultAPIKey, 400, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s.ClearRequests()
			body := &readSpy{r: strings.NewReader(`{"phone_number":"` + strings.Repeat("1", 4096) + `"}`)}
			req := httptest.NewRequest(http.MethodPost, tc.target, body)
			req.Header.Set("Content-Type", "application/json")
			if tc.key != "" {
				req.Header.Set("X-Api-Key", tc.key)
			}
			rec := httptest.NewRecorder()
			// The server itself, not Handler(): the suite's OpenAPI
			// validator, wrapped around Handler(), reads every body.
			s.ServeHTTP(rec, req)
			assert.Equal(t, tc.status, rec.Code, rec.Body.String())
			assert.Equal(t, tc.read, body.read)
			reqs := s.Requests()
			require.Len(t, reqs, 1)
			assert.Equal(t, tc.read, reqs[0].Body != nil)
		})
	}
}

// The journal keeps within its byte budget: oldest entries go first, and a
// long body is cut with a marker; the entry limit still applies.
func TestJournalByteBudget(t *testing.T) {
	s := newServer(t, fake.WithJournalBytes(16<<10))
	body := `{"phone_number":"` + strings.Repeat("7", 5000) + `"}`
	for range 40 {
		call(t, s, http.MethodPost, "/v1/chatapp/sequences/cancel", body)
	}
	reqs := s.Requests()
	require.NotEmpty(t, reqs)
	assert.Less(t, len(reqs), 40, "the oldest entries are forgotten")
	total := 0
	for _, r := range reqs {
		total += len(r.Body)
		assert.Equal(t, len(body), r.BodySize)
		assert.Less(t, len(r.Body), len(body))
		assert.True(t, bytes.HasSuffix(r.Body, []byte("[fake: body truncated, 5019 bytes in all]")), "%q", r.Body[len(r.Body)-60:])
	}
	assert.LessOrEqual(t, total, 16<<10)

}

// One path form everywhere: the string that names a path in a fault rule is
// the journal's Path and the filters' pattern, whichever prefix was sent.
func TestOnePathFormForFaultsJournalAndFilters(t *testing.T) {
	s, b := newBasic(t)
	conv := b.co.AddConversation(fake.Conversation{ContactID: b.ana})
	const pattern = "/conversations/*/messages"
	s.AddFault(fake.Fault{Path: "/api/v1" + pattern, Status: 503, Times: 1})
	assert.Equal(t, pattern, s.Faults()[0].Fault.Path, "a leading /v1 or /api/v1 means the same as without it")

	assert.Equal(t, 503, get(t, s, "/conversations/"+conv+"/messages").Status)
	assert.Equal(t, 200, call(t, s, "GET", "/api/v1/conversations/"+conv+"/messages", nil).Status)
	get(t, s, "/channels")

	reqs := s.RequestsMatching("GET", pattern)
	require.Len(t, reqs, 2)
	assert.Equal(t, "/conversations/"+conv+"/messages", reqs[0].Path)
	assert.Equal(t, []string{"/v1", "/api/v1"}, []string{reqs[0].Prefix, reqs[1].Prefix})
	assert.Equal(t, []int{503, 200}, []int{reqs[0].Status, reqs[1].Status})
	assert.Equal(t, 2, s.CountRequests("get", "/v1"+pattern), "a prefix in the pattern is ignored, the method's case too")
	assert.Equal(t, 2, s.CountRequests("GET", "/api/v1"+pattern))
	assert.Equal(t, 3, s.CountRequests("", ""))
	assert.Zero(t, s.CountRequests("POST", pattern))
	assert.Zero(t, s.CountRequests("", "[bad"))
	last, ok := s.LastRequest("", "")
	require.True(t, ok)
	assert.Equal(t, "/channels", last.Path)
	_, ok = s.LastRequest("DELETE", "")
	assert.False(t, ok)
}

// errorsTB records what the check helpers report.
type errorsTB struct {
	testing.TB
	errs []string
}

func (e *errorsTB) Helper() {}
func (e *errorsTB) Errorf(format string, args ...any) {
	e.errs = append(e.errs, fmt.Sprintf(format, args...))
}

func TestCheckHelpers(t *testing.T) {
	s := newServer(t)
	rec := &errorsTB{}
	assert.False(t, s.CheckRequests(rec, "", "", 1))
	require.Len(t, rec.errs, 1)
	assert.Contains(t, rec.errs[0], "0 requests match any method any path, want 1; the journal holds:\n\t(nothing)")

	seedBasic(t, s)
	call(t, s, "POST", "/v1/chatapp/sequences/cancel", map[string]string{"phone_number": "5511987654321"})

	assert.True(t, s.CheckRequests(t, "POST", "/chatapp/sequences/cancel", 1))
	assert.True(t, s.CheckLastBody(t, "POST", "/chatapp/*/cancel", `{ "phone_number": "5511987654321" }`))

	rec = &errorsTB{}
	assert.False(t, s.CheckRequests(rec, "GET", "/channels", 1))
	assert.False(t, s.CheckLastBody(rec, "POST", "/chatapp/sequences/cancel", `{"phone_number":"1"}`))
	assert.False(t, s.CheckLastBody(rec, "GET", "", `{}`))
	assert.False(t, s.CheckRequests(rec, "", "[bad", 0))
	assert.False(t, s.CheckLastBody(rec, "POST", "", `{not JSON`))
	require.Len(t, rec.errs, 5)
	assert.Contains(t, rec.errs[0], "0 requests match GET /channels, want 1")
	assert.Contains(t, rec.errs[0], "POST /v1/chatapp/sequences/cancel -> 200")
	assert.Contains(t, rec.errs[1], `want`)
	assert.Contains(t, rec.errs[2], "no request matches GET any path")
	assert.Contains(t, rec.errs[3], `pattern "[bad"`)
	assert.Contains(t, rec.errs[4], "the expected body is not JSON")
}

// Reset puts the server back as it started (the WithSeed data, the start
// key, the start clock reading), as convofake's POST /_fake/reset does.
// TestLoadReplacesAndRestoresOnError has Clear.
func TestResetRestoresTheStartClearEmpties(t *testing.T) {
	clock := fake.NewManualClock(t0)
	s := newServer(t, fake.WithClock(clock), fake.WithSeed(fake.DemoSeed()), fake.WithAPIKey("start-key"))
	co := s.Company()
	start := len(co.Contacts())
	require.NotZero(t, start)
	startNow := clock.Now()

	acc := co.AddChannel(fake.ChannelAccount{Channel: convo.ChannelChatapp})
	co.AddContact(fake.Contact{ChannelAccountID: acc, PhoneNumber: "5511900001111"})
	require.NoError(t, s.Load(&fake.Seed{Companies: []fake.CompanySeed{{APIKey: "loaded-key"}}}))
	s.AddCompany("second")
	clock.Advance(48 * time.Hour)
	s.AddFault(fake.Fault{Status: 500})
	get(t, s, "/channels")

	s.Reset()
	assert.Len(t, co.Contacts(), start)
	assert.Equal(t, "start-key", s.APIKey())
	assert.Len(t, s.Companies(), 1)
	assert.Equal(t, startNow, clock.Now())
	assert.Empty(t, s.Faults())
	assert.Empty(t, s.Requests())
}

// Every company's key, escaped once or twice over in every form of
// internal/testkit, is in no part of a journal entry: path, query, header
// or body.
func TestJournalRedactsEveryFormOnceAndTwice(t *testing.T) {
	s := newServer(t)
	for _, k := range testkit.Keys {
		s.AddCompany(k)
	}
	var forms []string
	for _, key := range testkit.Keys {
		for _, e1 := range testkit.Escapings {
			forms = append(forms, e1(key))
			for _, e2 := range testkit.Escapings {
				forms = append(forms, e2(e1(key)))
			}
		}
	}
	for _, form := range forms {
		callRaw(t, s, http.MethodPost, "/v1/conversations/"+url.PathEscape(form)+"/messages?q="+url.QueryEscape(form), `{"name": "`+form+`"}`,
			bearer(s.APIKey()), header{"Content-Type", "application/json"}, header{"X-Echo", form})
	}
	reqs := s.Requests()
	require.Len(t, reqs, len(forms))
	leaks := 0
	for i, r := range reqs {
		seen := []string{r.Path, fmt.Sprint(r.Query), fmt.Sprint(r.Header), string(r.Body)}
		for _, part := range seen {
			for _, key := range testkit.Keys {
				for name, f := range testkit.Escapings {
					if strings.Contains(part, f(key)) {
						leaks++
						t.Errorf("entry %d (%q): the %s form of a key in %q", i, forms[i], name, part)
					}
				}
			}
		}
	}
	t.Logf("%d requests, each with a key in its path, query, header and body: %d leaks", len(reqs), leaks)
}

// A request repeated before the Retry-After of its refusal is listed; one
// repeated after it, another request, or the same one from another company
// is not.
func TestRequestsSentTooEarly(t *testing.T) {
	const other = "other-company-key-0123456789"
	tests := []struct {
		name      string
		then      time.Duration // clock moved after the refusal
		key, path string        // the second request
		wantEarly int
	}{
		{"again at once", 0, "", "/v1/channels", 1},
		{"again a second in", time.Second, "", "/v1/channels", 1},
		{"again after the wait", 2 * time.Second, "", "/v1/channels", 0},
		{"another path", 0, "", "/v1/conversations", 0},
		{"another company", 0, other, "/v1/channels", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clock := fake.NewManualClock(time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC))
			s := fake.New(t, fake.WithClock(clock))
			s.AddCompany(other)
			s.AddFault(fake.Fault{Path: "/channels", Status: http.StatusTooManyRequests, RetryAfter: 2 * time.Second, Times: 1})
			get := func(key, path string) int {
				req, err := http.NewRequest(http.MethodGet, strings.TrimSuffix(s.URL(), "/v1")+path, nil)
				require.NoError(t, err)
				req.Header.Set("Authorization", "Bearer "+cmp.Or(key, s.APIKey()))
				resp, err := http.DefaultClient.Do(req)
				require.NoError(t, err)
				_, _ = io.Copy(io.Discard, resp.Body)
				_ = resp.Body.Close()
				return resp.StatusCode
			}
			require.Equal(t, http.StatusTooManyRequests, get("", "/v1/channels"))
			clock.Advance(tt.then)
			require.Equal(t, http.StatusOK, get(tt.key, tt.path))
			early := fake.RequestsSentTooEarly(s.Requests())
			assert.Len(t, early, tt.wantEarly)
			for _, r := range early {
				assert.Equal(t, "/channels", r.Path)
			}
		})
	}
}
