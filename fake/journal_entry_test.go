package fake

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestQueryLen(t *testing.T) {
	for _, raw := range []string{
		"", "a=1", "a=1&b=22", "limit=50&cursor=abc%2Fdef", "q=a+b", "a", "a=", "=b", "&&a=1&",
		"a=1;b=2&c=3", "a=%zz&b=1", "a=%4", "a=%41%42", "k%20ey=v%20al", "a=1&a=2",
	} {
		t.Run(raw, func(t *testing.T) {
			q, _ := url.ParseQuery(raw)
			want := 0
			for k, vs := range q {
				for _, v := range vs { // a name given twice counts twice
					want += len(k) + len(v)
				}
			}
			assert.Equal(t, want, queryLen(raw))
		})
	}
}

// requestSize is the bytes a built Request holds, as the budget counts them.
func requestSize(r *Request) int64 {
	n := entryOverhead + len(r.Method) + len(r.Prefix) + len(r.Path) + len(r.CompanyID) + len(r.Body)
	for _, m := range []map[string][]string{r.Query, r.Header} {
		for k, vs := range m {
			n += len(k)
			for _, v := range vs {
				n += len(v)
			}
		}
	}
	return int64(n)
}

// An entry's part of the budget, counted before anything is redacted, is
// the size of the Request it builds when no key hides outside the key
// headers; the build redacts as the journal always has.
func TestEntryRawSizeAndBuild(t *testing.T) {
	const key = "sk-live-0123456789abcdef"
	for _, tc := range []struct {
		name      string
		target    string
		header    http.Header
		body      string
		samesize  bool
		wantPath  string
		wantQuery url.Values
		wantBody  string
		wantAuth  string
	}{
		{"plain GET", "/v1/channels?limit=5", http.Header{"Authorization": {"Bearer " + key}, "Accept": {"application/json"}}, "",
			true, "/channels", url.Values{"limit": {"5"}}, "", "Bearer [REDACTED]"},
		{"X-Api-Key", "/api/v1/conversations?status=open", http.Header{"X-Api-Key": {key}}, "",
			true, "/conversations", url.Values{"status": {"open"}}, "", ""},
		{"a body", "/v1/chatapp/contacts", http.Header{"Authorization": {"Bearer " + key}}, `{"phone_number":"5511"}`,
			true, "/chatapp/contacts", url.Values{}, `{"phone_number":"5511"}`, "Bearer [REDACTED]"},
		{"a key as an id, in the query and the body", "/v1/conversations/" + key + "/messages?cursor=" + key, http.Header{"Authorization": {"Bearer " + key}}, `{"k":"` + key + `"}`,
			false, "/conversations/[REDACTED]/messages", url.Values{"cursor": {"[REDACTED]"}}, `{"k":"[REDACTED]"}`, "Bearer [REDACTED]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			u, err := url.Parse(tc.target)
			require.NoError(t, err)
			e := entry{req: Request{Method: "GET", CompanyID: "co", Time: time.Unix(0, 0)}, path: u.EscapedPath(), rawQuery: u.RawQuery, header: tc.header, keys: &keySet{keys: []string{key}}}
			if tc.body != "" {
				e.body = []byte(tc.body)
			}
			size := e.rawSize()
			e.build(journalBodyMax)
			assert.True(t, e.built)
			assert.Nil(t, e.header, "a built entry holds only its Request")
			if tc.samesize {
				assert.Equal(t, requestSize(&e.req), size)
			}
			assert.Equal(t, tc.wantPath, e.req.Path)
			assert.Equal(t, tc.wantQuery, e.req.Query)
			assert.Equal(t, tc.wantBody, string(e.req.Body))
			assert.Equal(t, tc.wantAuth, e.req.Header.Get("Authorization"))
			assert.NotContains(t, strings.Join(e.req.Header.Values("X-Api-Key"), ""), key)
		})
	}
}

// The key set is shared while the keys are the same, and made again when a
// company comes or a key changes.
func TestCompanyKeys(t *testing.T) {
	s, err := NewHandler(WithAPIKey("first-key-0123456789"))
	require.NoError(t, err)
	a := s.companyKeys()
	assert.Equal(t, []string{"first-key-0123456789"}, a.keys)
	assert.Same(t, a, s.companyKeys(), "unchanged keys: the same set")
	assert.Equal(t, "/x/[REDACTED]", s.RedactKeys("/x/first-key-0123456789"))

	s.AddCompany("second-key-0123456789")
	b := s.companyKeys()
	assert.Equal(t, []string{"first-key-0123456789", "second-key-0123456789"}, b.keys)
	assert.Equal(t, []string{"first-key-0123456789"}, a.keys, "a set never changes")
	assert.Equal(t, "/x/[REDACTED]", s.RedactKeys("/x/second-key-0123456789"))

	require.NoError(t, s.Load(&Seed{Companies: []CompanySeed{{APIKey: "third-key-0123456789"}}}))
	assert.Equal(t, []string{"third-key-0123456789"}, s.companyKeys().keys)
	assert.Equal(t, "/x/second-key-0123456789", s.RedactKeys("/x/second-key-0123456789"))
}

// The ring keeps the newest entries, oldest first, across its wrap, its
// growth and a company's entries taken out of it. An entry here counts
// its method, path and one-letter company id.
func TestJournalRing(t *testing.T) {
	s := &Server{journal: journal{limit: 20, maxBytes: 1 << 20}}
	j := &s.journal
	keys := &keySet{keys: []string{"some-key-0123456789"}}
	add := func(i int, company string) {
		j.add(entry{req: Request{Method: "GET", Status: i, CompanyID: company}, path: "/x", keys: keys})
	}
	statuses := func() []int {
		var out []int
		for _, r := range j.requestsLocked(nil) {
			out = append(out, r.Status)
		}
		return out
	}
	var want []int
	for i := range 50 {
		add(i, []string{"a", "b"}[i%2])
		want = append(want, i)
	}
	assert.Equal(t, want[30:], statuses())
	assert.Equal(t, 20, j.n)
	assert.LessOrEqual(t, len(j.ring), 21, "the ring grows to the limit and no further")
	assert.Equal(t, int64(20*(entryOverhead+len("GET/x")+1)), j.bytes)

	(&Company{s: s, id: "a"}).ClearRequests()
	var odd []int
	for i := 31; i < 50; i += 2 {
		odd = append(odd, i)
	}
	assert.Equal(t, odd, statuses())
	assert.Equal(t, int64(10*(entryOverhead+len("GET/x")+1)), j.bytes)
	for i := 50; i < 70; i++ {
		add(i, "b")
	}
	want = want[:0]
	for i := 50; i < 70; i++ {
		want = append(want, i)
	}
	assert.Equal(t, want, statuses())

	j.maxBytes = 3 * (entryOverhead + int64(len("GET/x")+1))
	add(70, "b")
	assert.Equal(t, []int{68, 69, 70}, statuses(), "the byte budget drops the oldest")
}
