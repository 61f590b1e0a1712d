package fake_test

// Wire-level audit of the fake against spec §2–§5, §7, §8 and DESIGN D1–D32:
// raw net/http requests and exact JSON. Each test names the rule it pins.

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	convo "github.com/convoapi/convo-go"
	"github.com/convoapi/convo-go/fake"
)

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

// callRaw is call without the automatic Content-Type: headers are exactly
// those given.
func callRaw(t *testing.T, s *fake.Server, method, path string, body any, headers ...header) resp {
	t.Helper()
	var rdr *strings.Reader
	if b, ok := body.(string); ok {
		rdr = strings.NewReader(b)
	}
	var req *http.Request
	var err error
	if rdr != nil {
		req, err = http.NewRequest(method, strings.TrimSuffix(s.URL(), "/v1")+path, rdr)
	} else {
		req, err = http.NewRequest(method, strings.TrimSuffix(s.URL(), "/v1")+path, nil)
	}
	require.NoError(t, err)
	for _, h := range headers {
		if h[0] != "" {
			req.Header.Set(h[0], h[1])
		}
	}
	res, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer res.Body.Close()
	return resp{res.StatusCode, res.Header, readAll(t, res)}
}

// §7: the oversized-body answer (the fake's own 400) comes after 401 and is
// in the envelope, for an authenticated request.
func TestAuditOversizedBody(t *testing.T) {
	s := newServer(t)
	big := `{"phone_number":"` + strings.Repeat("1", 1<<20) + `"}`
	r := callRaw(t, s, "POST", "/v1/chatapp/sequences/cancel", big, bearer(s.APIKey()), header{"Content-Type", "application/json"})
	assertError(t, r, 400, "INVALID_PARAM", "The request body is larger than 1 MiB.", "/api/v1/chatapp/sequences/cancel", "POST", "")
}

// §7, D17, D18: every error answer has exactly the seven fields, with their
// types; statusCode equals the HTTP status; timestamp is the clock's reading
// with three fractional digits; message.details exists only for
// INVALID_BUCKET (and fault rules that give details) and is absent, not
// null, elsewhere.
func TestAuditErrorBodyForEveryCode(t *testing.T) {
	clock := fake.NewManualClock(t0.Add(123456789 * time.Nanosecond))
	s := newServer(t, fake.WithClock(clock), fake.WithRateLimit(1, 1000))
	b := seedBasic(t, s)
	bucketDetails := `{"valid_buckets":["unanswered","never_engaged","unassigned","automation_only"],"opt_in":["unassigned","automation_only"]}`
	tests := []struct {
		name, method, path string
		body               any
		status             int
		code, details      string
	}{
		{"INVALID_PARAM", "GET", "/v1/conversations?limit=0", nil, 400, "INVALID_PARAM", ""},
		{"MISSING_PARAM", "GET", "/v1/chatapp/contacts/lookup", nil, 400, "MISSING_PARAM", ""},
		{"INVALID_BUCKET", "GET", "/v1/conversations/anomalies?include=x", nil, 400, "INVALID_BUCKET", bucketDetails},
		{"CONVERSATION_NOT_FOUND", "GET", "/v1/conversations/nope/messages", nil, 404, "CONVERSATION_NOT_FOUND", ""},
		{"CONTACT_NOT_FOUND", "GET", "/v1/chatapp/contacts/lookup?phone_number=5599999999999", nil, 404, "CONTACT_NOT_FOUND", ""},
		{"CHANNEL_NOT_FOUND", "POST", "/v1/chatapp/contacts", map[string]string{"phone_number_id": "x", "phone_number": "5511911112222", "name": "X"}, 404, "CHANNEL_NOT_FOUND", ""},
		{"CONTACT_EXISTS", "POST", "/v1/chatapp/contacts", map[string]string{"phone_number_id": b.chatPNID, "phone_number": b.anaPhone, "name": "X"}, 409, "CONTACT_EXISTS", ""},
		{"MEDIA_NOT_FOUND", "GET", "/v1/attachments/nope", nil, 404, "MEDIA_NOT_FOUND", ""},
		{"NOT_FOUND", "GET", "/v1/nope", nil, 404, "NOT_FOUND", ""},
		{"METHOD_NOT_ALLOWED", "PUT", "/v1/channels", nil, 405, "METHOD_NOT_ALLOWED", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := call(t, s, tc.method, tc.path, tc.body)
			p := tc.path
			if i := strings.IndexByte(p, '?'); i >= 0 {
				p = p[:i]
			}
			assertError(t, r, tc.status, convo.ErrorCode(tc.code), "", "/api"+p, tc.method, tc.details)
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

// D18 everywhere, spec §2.3 rule 1 everywhere: on the demo data, read every
// endpoint and walk every answer. Every time (timestamp, *_at, window.since,
// expires_at) has exactly three fractional digits and Z; no string of a
// message is a URL or a storage path.
func TestAuditTimestampsAndNoURLsAcrossTheDemo(t *testing.T) {
	clock := fake.NewManualClock(t0.Add(987654321 * time.Nanosecond)) // sub-millisecond on purpose
	s := newServer(t, fake.WithClock(clock), fake.WithSeed(fake.DemoSeed()))
	var times int
	var walk func(key string, v any, inMessage bool)
	walk = func(key string, v any, inMessage bool) {
		switch x := v.(type) {
		case map[string]any:
			for k, e := range x {
				walk(k, e, inMessage)
			}
		case []any:
			for _, e := range x {
				walk(key, e, inMessage)
			}
		case string:
			if key == "timestamp" || key == "since" || strings.HasSuffix(key, "_at") {
				times++
				assert.Regexp(t, tsPattern, x, key)
			}
			if inMessage {
				assert.NotContains(t, x, "://", key)
				assert.NotContains(t, x, "_files", key)
				assert.False(t, strings.HasPrefix(x, "/"), "%s: %q", key, x)
				if key == "filename" {
					assert.NotContains(t, x, "/")
				}
			}
		}
	}
	check := func(path string, inMessage bool) map[string]any {
		r := get(t, s, path)
		require.Equal(t, 200, r.Status, "%s: %s", path, r.Body)
		m := r.JSON(t)
		walk("", m, inMessage)
		return m
	}
	check("/channels", false)
	check("/conversations/anomalies?include=unassigned,automation_only", false)
	check("/chatapp/contacts/lookup?phone_number=5511987654321", false)
	convs := check("/conversations?status=all&limit=100", false)
	items := convs["data"].(map[string]any)["items"].([]any)
	require.Len(t, items, 11)
	for _, it := range items {
		id := it.(map[string]any)["id"].(string)
		m := check("/conversations/"+id+"/messages?since=2000-01-01T00:00:00Z&limit=100", true)
		for _, msg := range m["data"].(map[string]any)["items"].([]any) {
			md, _ := msg.(map[string]any)["media"].(map[string]any)
			if mid, ok := md["media_id"].(string); ok {
				check("/attachments/"+mid, false)
			}
		}
		check("/conversations/"+id+"/messages", true) // the default window's since
	}
	assert.Greater(t, times, 100)
}

// Spec §4.1 rule 1, §2.4: without since the read covers exactly the last 30
// days: a message exactly 30 days old (to the millisecond) is inside, one a
// millisecond older is outside, and window.since is that instant. With
// since, window.since echoes the since applied, in UTC, to the millisecond;
// the instant applied is the one echoed.
func TestAuditMessageWindowBoundaries(t *testing.T) {
	now := t0.Add(500*time.Millisecond + 700*time.Microsecond) // 10:00:00.5007
	s := newServer(t, fake.WithClock(fake.NewManualClock(now)))
	b := seedBasic(t, s)
	conv := b.co.AddConversation(fake.Conversation{ContactID: b.ana})
	start := time.Date(2026, 10, 23, 10, 0, 0, 500_000_000, time.UTC) // now - 30 days, to the ms
	in := b.co.Inbound(conv, "edge", start)
	out := b.co.Inbound(conv, "just out", start.Add(-time.Millisecond))
	p := readMessages(t, s, conv, nil)
	assert.Equal(t, []string{in}, ids(p.Items))
	assert.Equal(t, map[string]any{"recent_window_days": float64(30), "since": "2026-10-23T10:00:00.500Z"}, p.Window)

	tests := []struct {
		since, echo string
		want        []string
	}{
		{"2026-10-23T10:00:00.4999999Z", "2026-10-23T10:00:00.499Z", []string{in, out}},
		{"2026-10-23T10:00:00.500999999Z", "2026-10-23T10:00:00.500Z", []string{in}},
		{"2026-10-23T12:00:00.500+02:00", "2026-10-23T10:00:00.500Z", []string{in}},
		{"2026-10-23T10:00:00.501Z", "2026-10-23T10:00:00.501Z", []string{}},
		{"2030-01-01T00:00:00Z", "2030-01-01T00:00:00.000Z", []string{}},
	}
	for _, tc := range tests {
		t.Run(tc.since, func(t *testing.T) {
			p := readMessages(t, s, conv, url.Values{"since": {tc.since}})
			assert.Equal(t, tc.want, ids(p.Items))
			assert.Equal(t, tc.echo, p.Window["since"])
		})
	}
	for _, bad := range []string{"2026-10-23", "2026-10-23T10:00:00", "yesterday", "", "1700000000"} {
		r := get(t, s, "/conversations/"+conv+"/messages?since="+url.QueryEscape(bad))
		assertError(t, r, 400, "INVALID_PARAM", "since must be an RFC 3339 date-time, e.g. 2026-11-22T10:04:05.123Z", "/api/v1/conversations/"+conv+"/messages", "GET", "")
	}
}

// Spec §4.1 rule 3, §4.3, §8, D4: integer parameters take plain decimal
// digits only (leading zeros allowed), within their bounds.
func TestAuditIntegerParameterEdges(t *testing.T) {
	s := newServer(t)
	b := seedBasic(t, s)
	conv := b.co.AddConversation(fake.Conversation{ContactID: b.ana})
	endpoints := []struct {
		name, path, param string
		max               int
	}{
		{"messages limit", "/conversations/" + conv + "/messages", "limit", 100},
		{"conversations limit", "/conversations", "limit", 100},
		{"anomalies limit", "/conversations/anomalies", "limit", 100},
		{"anomalies threshold", "/conversations/anomalies", "threshold_hours", 24},
	}
	values := []struct {
		v  string
		ok func(max int) bool
	}{
		{"", never}, {" 5", never}, {"5 ", never}, {"+5", never}, {"-1", never}, {"0", never}, {"1e2", never},
		{"5.0", never}, {"0x10", never}, {"abc", never}, {"99999999999999999999999", never},
		{"1", always}, {"05", always}, {"0000005", always},
		{"24", always}, {"25", func(max int) bool { return max >= 25 }},
		{"100", func(max int) bool { return max >= 100 }}, {"101", never},
	}
	for _, ep := range endpoints {
		for _, v := range values {
			t.Run(ep.name+"="+v.v, func(t *testing.T) {
				r := get(t, s, ep.path+"?"+ep.param+"="+url.QueryEscape(v.v))
				if v.ok(ep.max) {
					assert.Equal(t, 200, r.Status, "%s", r.Body)
					return
				}
				assertError(t, r, 400, "INVALID_PARAM", fmt.Sprintf("%s must be an integer from 1 to %d", ep.param, ep.max), "/api/v1"+ep.path, "GET", "")
			})
		}
	}
}

func never(int) bool  { return false }
func always(int) bool { return true }

// D29: a messages cursor neither repeats nor skips a message that existed
// when the first page was read, while new messages arrive AND older ones
// are backfilled (inserted with past times, before, between and at the
// times of messages already read).
func TestAuditMessagesCursorStableWhileBackfilling(t *testing.T) {
	clock := fake.NewManualClock(t0)
	s := newServer(t, fake.WithClock(clock))
	b := seedBasic(t, s)
	conv := b.co.AddConversation(fake.Conversation{ContactID: b.ana})
	existing := map[string]bool{}
	for i := 0; i < 40; i++ {
		existing[b.co.Inbound(conv, fmt.Sprint(i), t0.Add(-time.Duration(100-i/3)*time.Minute))] = true
	}
	seen := map[string]int{}
	q := url.Values{"limit": {"6"}}
	for page := 0; ; page++ {
		require.Less(t, page, 30)
		p := readMessages(t, s, conv, q)
		for _, id := range ids(p.Items) {
			seen[id]++
		}
		// Backfill: older than all, in the middle, at an existing instant;
		// and new messages.
		b.co.Inbound(conv, "very old", t0.Add(-200*time.Minute))
		b.co.Inbound(conv, "middle", t0.Add(-time.Duration(90-page)*time.Minute))
		b.co.Reply(conv, fake.SenderAgent, "tie", t0.Add(-95*time.Minute))
		clock.Advance(time.Second)
		b.co.Inbound(conv, "new", time.Time{})
		if p.NextCursor == nil {
			break
		}
		q = url.Values{"limit": {"6"}, "cursor": {*p.NextCursor}}
	}
	for id := range existing {
		assert.Equal(t, 1, seen[id], "message %s seen %d times", id, seen[id])
	}
	for id, n := range seen {
		assert.Equal(t, 1, n, "message %s repeated", id)
	}
}

// D29 on the conversation list: a conversation without messages sorts by its
// created_at; a message backfilled into it later (older than its created_at)
// must not make it come back on a later page.
func TestAuditConversationCursorStableWhileBackfilling(t *testing.T) {
	s := newServer(t)
	b := seedBasic(t, s)
	var convs []string
	for i := 0; i < 4; i++ {
		convs = append(convs, b.co.AddConversation(fake.Conversation{ContactID: b.ana, CreatedAt: t0.Add(-time.Duration(i+1) * time.Hour)}))
	}
	p := listConvs(t, s, url.Values{"limit": {"1"}})
	got := p.ids()
	require.Equal(t, []string{convs[0]}, got)
	// Backfill into the conversation already read: a message older than
	// every created_at (created_at moves back with it).
	b.co.Inbound(convs[0], "history", t0.Add(-48*time.Hour))
	for p.NextCursor != nil {
		p = listConvs(t, s, url.Values{"limit": {"1"}, "cursor": {*p.NextCursor}})
		got = append(got, p.ids()...)
	}
	assert.Equal(t, convs, got)
}

// Spec §4.3, D32: with a cursor, the list goes on with the filters of the
// first page; filters sent along with the cursor are validated, then ignored.
func TestAuditConversationCursorKeepsItsFilters(t *testing.T) {
	s := newServer(t)
	b := seedBasic(t, s)
	var open []string
	for i := 0; i < 3; i++ {
		c := b.co.AddConversation(fake.Conversation{ContactID: b.ana})
		b.co.Inbound(c, "x", t0.Add(-time.Duration(i+1)*time.Minute))
		open = append(open, c)
	}
	res := b.co.AddConversation(fake.Conversation{ContactID: b.bob, Status: convo.ConversationResolved})
	b.co.Inbound(res, "x", t0.Add(-30*time.Second))
	p := listConvs(t, s, url.Values{"limit": {"1"}})
	require.Equal(t, open[:1], p.ids())
	p2 := listConvs(t, s, url.Values{"limit": {"5"}, "status": {"resolved"}, "channel": {"botapp"}, "cursor": {*p.NextCursor}})
	assert.Equal(t, open[1:], p2.ids())
	r := get(t, s, "/conversations?status=bogus&cursor="+url.QueryEscape(*p.NextCursor))
	assertError(t, r, 400, "INVALID_PARAM", "status must be one of open, resolved, archived, all", "/api/v1/conversations", "GET", "")
	// A messages cursor is not a conversations cursor.
	for i := 0; i < 3; i++ {
		b.co.Inbound(open[0], "y", t0.Add(-time.Duration(i+10)*time.Minute))
	}
	mp := readMessages(t, s, open[0], url.Values{"limit": {"1"}})
	r = get(t, s, "/conversations?cursor="+url.QueryEscape(*mp.NextCursor))
	assertError(t, r, 400, "INVALID_PARAM", "cursor is invalid: pass the next_cursor of the previous page unchanged", "/api/v1/conversations", "GET", "")
}

// D32: every bad filter value is 400 INVALID_PARAM naming the parameter;
// D8: phone is normalized (any formatting), 8 to 15 digits.
func TestAuditConversationFilterValues(t *testing.T) {
	s := newServer(t)
	b := seedBasic(t, s)
	c := b.co.AddConversation(fake.Conversation{ContactID: b.ana, AssignedTo: "Marta"})
	b.co.Inbound(c, "x", t0.Add(-time.Hour))
	empty := b.co.AddConversation(fake.Conversation{ContactID: b.bob, CreatedAt: t0.Add(-2 * time.Hour)})
	tests := []struct {
		q    string
		want []string // nil: 400 naming the parameter
		msg  string
	}{
		{"assigned=true", []string{c}, ""},
		{"assigned=false", []string{empty}, ""},
		{"assigned=TRUE", nil, "assigned must be true or false"},
		{"assigned=True", nil, "assigned must be true or false"},
		{"assigned=0", nil, "assigned must be true or false"},
		{"assigned=", nil, "assigned must be true or false"},
		{"status=", nil, "status must be one of open, resolved, archived, all"},
		{"status=OPEN", nil, "status must be one of open, resolved, archived, all"},
		{"channel=Chatapp", nil, "channel must be one of chatapp, botapp, webchat"},
		{"channel=sms", nil, "channel must be one of chatapp, botapp, webchat"},
		{"since=", nil, "since must be an RFC 3339 date-time, e.g. 2026-11-22T10:04:05.123Z"},
		{"until=2026-11-22%2010:00:00Z", nil, "until must be an RFC 3339 date-time, e.g. 2026-11-22T10:04:05.123Z"},
		{"phone=", nil, "phone must have 8 to 15 digits"},
		{"phone=1234567", nil, "phone must have 8 to 15 digits"},
		{"phone=1234567890123456", nil, "phone must have 8 to 15 digits"},
		{"phone=%2B55+(11)+98765-4321", []string{c}, ""},
		{"phone=12345678", []string{}, ""},
		// D7: a conversation without messages never matches since or until.
		{"since=2000-01-01T00:00:00Z", []string{c}, ""},
		{"until=2100-01-01T00:00:00Z", []string{c}, ""},
		{"since=2026-11-22T09:00:00.000Z&until=2026-11-22T09:00:00.000Z", []string{}, ""},
		{"since=2026-11-22T09:00:00.000Z&until=2026-11-22T09:00:00.001Z", []string{c}, ""},
	}
	for _, tc := range tests {
		t.Run(tc.q, func(t *testing.T) {
			r := get(t, s, "/conversations?"+tc.q)
			if tc.want == nil {
				assertError(t, r, 400, "INVALID_PARAM", tc.msg, "/api/v1/conversations", "GET", "")
				return
			}
			var p convPage
			require.NoError(t, json.Unmarshal([]byte(r.Data(t, 200)), &p))
			assert.Equal(t, tc.want, p.ids())
		})
	}
}

// Spec §2.3 rules 2, 3, 6 and D13: the media block is present on every
// media type (image, document, audio, video, sticker), media_id is null
// unless available, the other types have media null, and system and
// unsupported messages have text, media and raw null whatever was seeded.
// A default filename does not depend on the machine's MIME database.
func TestAuditMediaBlockByType(t *testing.T) {
	s := newServer(t)
	b := seedBasic(t, s)
	conv := b.co.AddConversation(fake.Conversation{ContactID: b.ana})
	noRef := `{"media_id":null,"media_status":"no_reference","mime_type":null,"file_size":null,"filename":null}`
	tests := []struct {
		name  string
		msg   fake.Message
		media string // expected JSON of media; "" for null
		text  string // expected JSON of text
	}{
		{"image without media", fake.Message{Type: "image"}, noRef, "null"},
		{"document without media", fake.Message{Type: "document"}, noRef, "null"},
		{"audio without media", fake.Message{Type: "audio"}, noRef, "null"},
		{"video without media", fake.Message{Type: "video"}, noRef, "null"},
		{"sticker without media", fake.Message{Type: "sticker"}, noRef, "null"},
		{"sticker unknown", fake.Message{Type: "sticker", Media: &fake.Media{MediaStatus: convo.MediaUnknown, MimeType: "image/webp", FileSize: 300}},
			`{"media_id":null,"media_status":"unknown","mime_type":"image/webp","file_size":300,"filename":null}`, "null"},
		{"image explicit no_reference", fake.Message{Type: "image", Text: "caption", Media: &fake.Media{MediaStatus: convo.MediaNoReference, MimeType: "image/png"}}, noRef, `"caption"`},
		{"text", fake.Message{Text: "hi"}, "", `"hi"`},
		{"location", fake.Message{Type: "location"}, "", "null"},
		{"contact card", fake.Message{Type: "contact"}, "", "null"},
		{"system with text", fake.Message{Sender: fake.SenderSystem, Type: "system", Text: "Conversation assigned"}, "", "null"},
		{"unsupported with media", fake.Message{Type: "unsupported", Text: "x", Media: &fake.Media{MimeType: "image/png"}}, "", "null"},
	}
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.msg.MessageID = fmt.Sprintf("m%02d", i)
			tc.msg.At = t0.Add(-time.Duration(i+1) * time.Minute)
			b.co.AddMessage(conv, tc.msg)
			p := readMessages(t, s, conv, url.Values{"limit": {"100"}})
			var it map[string]any
			for _, item := range p.Items {
				if item["message_id"] == tc.msg.MessageID {
					it = item
				}
			}
			require.NotNil(t, it)
			media, _ := json.Marshal(it["media"])
			if tc.media == "" {
				assert.Equal(t, "null", string(media))
			} else {
				assert.JSONEq(t, tc.media, string(media))
			}
			text, _ := json.Marshal(it["text"])
			assert.JSONEq(t, tc.text, string(text))
			if tc.msg.Type == "system" || tc.msg.Type == "unsupported" {
				assert.Nil(t, it["raw"])
			} else {
				assert.NotNil(t, it["raw"])
			}
			assert.Equal(t, []any{}, it["reactions"])
		})
	}
	// Available media: media_id filled; default filename from a fixed table.
	m := b.co.AddMessage(conv, fake.Message{Sender: fake.SenderContact, At: t0, Media: &fake.Media{MimeType: "image/jpeg", Data: []byte("jpg")}})
	p := readMessages(t, s, conv, url.Values{"limit": {"1"}})
	media, _ := json.Marshal(p.Items[0]["media"])
	assert.JSONEq(t, `{"media_id":"`+s.MediaID(m)+`","media_status":"available","mime_type":"image/jpeg","file_size":3,"filename":"file.jpg"}`, string(media))
	assert.Equal(t, "image", p.Items[0]["type"])
}

// Spec §2.3 rule 1: a file name that is a path cannot be seeded.
func TestAuditFilenameIsNeverAPath(t *testing.T) {
	s := newServer(t)
	b := seedBasic(t, s)
	conv := b.co.AddConversation(fake.Conversation{ContactID: b.ana})
	for _, fn := range []string{"uploads/2026/a.png", `C:\tmp\a.png`, "/var/storage/a.png"} {
		assert.Panics(t, func() {
			b.co.AddMessage(conv, fake.Message{Media: &fake.Media{MimeType: "image/png", Filename: fn}})
		}, fn)
	}
	_, err := fake.LoadSeed(strings.NewReader(`{"companies":[{"channels":[{"ref":"c","channel":"chatapp"}],
	  "contacts":[{"ref":"a","channel":"c","phone":"5511987654321"}],
	  "conversations":[{"contact":"a","messages":[{"type":"image","media":{"mime_type":"image/png","filename":"s3/bucket/a.png"}}]}]}]}`))
	require.Error(t, err)
	assert.Contains(t, err.Error(), `companies[0].conversations[0].messages[0].media.filename: "s3/bucket/a.png" is a path`)
}

// Spec §4.4, §2.6, D4, D27, D28: include is a comma list (a repeated
// include is INVALID_PARAM, see TestRepeatedQueryParameters);
// spaces, empty names, duplicates and the two always-returned names are
// accepted; anything else is INVALID_BUCKET naming it, case-sensitive.
func TestAuditAnomaliesInclude(t *testing.T) {
	s := newServer(t)
	details := `{"valid_buckets":["unanswered","never_engaged","unassigned","automation_only"],"opt_in":["unassigned","automation_only"]}`
	tests := []struct {
		q    string
		want []string // buckets; nil: INVALID_BUCKET
		bad  string
	}{
		{"", []string{"unanswered", "never_engaged"}, ""},
		{"include=", []string{"unanswered", "never_engaged"}, ""},
		{"include=,", []string{"unanswered", "never_engaged"}, ""},
		{"include=unanswered", []string{"unanswered", "never_engaged"}, ""},
		{"include=never_engaged,unanswered", []string{"unanswered", "never_engaged"}, ""},
		{"include=unassigned", []string{"unanswered", "never_engaged", "unassigned"}, ""},
		{"include=unassigned,unassigned", []string{"unanswered", "never_engaged", "unassigned"}, ""},
		{"include=+unassigned+,+automation_only+", []string{"unanswered", "never_engaged", "unassigned", "automation_only"}, ""},
		{"include=UNASSIGNED", nil, "UNASSIGNED"},
		{"include=unassigned,bogus", nil, "bogus"},
		{"include=unassigned;automation_only", nil, "unassigned;automation_only"},
	}
	for _, tc := range tests {
		t.Run(tc.q, func(t *testing.T) {
			r := get(t, s, "/conversations/anomalies?"+tc.q)
			if tc.want == nil {
				assertError(t, r, 400, "INVALID_BUCKET", "Unknown bucket: "+tc.bad+".", "/api/v1/conversations/anomalies", "GET", details)
				return
			}
			var data struct {
				Buckets map[string]json.RawMessage `json:"buckets"`
			}
			require.NoError(t, json.Unmarshal([]byte(r.Data(t, 200)), &data))
			assert.ElementsMatch(t, tc.want, keysOf(data.Buckets))
			assert.JSONEq(t, `{"count":0}`, string(data.Buckets["never_engaged"]), "never_engaged is a count only")
			for _, b := range tc.want {
				if b != "never_engaged" {
					assert.JSONEq(t, `{"count":0,"items":[]}`, string(data.Buckets[b]))
				}
			}
		})
	}
}

// Spec §4.4 rules 1–2, §8, D4: the window's ends at the threshold edges 1
// and 24 (both inclusive), per channel; waiting_hours has one decimal in
// the JSON text.
func TestAuditAnomaliesThresholdEdgesAndDecimals(t *testing.T) {
	s := newServer(t, fake.WithAnomalyCacheTTL(0))
	b := seedBasic(t, s)
	mk := func(id, contact string, ago time.Duration) {
		b.co.Inbound(b.co.AddConversation(fake.Conversation{ID: id, ContactID: contact}), "x", t0.Add(-ago))
	}
	mk("a-1h", b.ana, time.Hour)
	mk("a-59m", b.ana, time.Hour-time.Second)
	mk("b-24h", b.bob, 24*time.Hour)
	mk("b-over", b.bob, 24*time.Hour+time.Millisecond)
	mk("w-5h", b.visitor, 5*time.Hour-2*time.Minute) // 4.9667 h: 5.0
	tests := []struct {
		q    string
		want []string
	}{
		{"threshold_hours=1", []string{"b-24h", "w-5h", "a-1h"}},
		{"threshold_hours=24", []string{"b-24h"}},
		{"threshold_hours=5", []string{"b-24h"}},
		{"threshold_hours=4", []string{"b-24h", "w-5h"}},
	}
	for _, tc := range tests {
		t.Run(tc.q, func(t *testing.T) {
			raw := get(t, s, "/conversations/anomalies?"+tc.q).Data(t, 200)
			var data struct {
				Window struct {
					Threshold int `json:"threshold_hours"`
				} `json:"window"`
				Buckets struct {
					Unanswered struct {
						Count int `json:"count"`
						Items []struct {
							ID string `json:"conversation_id"`
						} `json:"items"`
					} `json:"unanswered"`
				} `json:"buckets"`
			}
			require.NoError(t, json.Unmarshal([]byte(raw), &data))
			var got []string
			for _, it := range data.Buckets.Unanswered.Items {
				got = append(got, it.ID)
			}
			assert.Equal(t, tc.want, got)
			assert.Equal(t, len(tc.want), data.Buckets.Unanswered.Count)
		})
	}
	raw := get(t, s, "/conversations/anomalies?threshold_hours=1").Data(t, 200)
	assert.Contains(t, raw, `"waiting_hours":24.0,`)
	assert.Contains(t, raw, `"waiting_hours":5.0,`)
	assert.Contains(t, raw, `"waiting_hours":1.0,`)
	assert.Contains(t, raw, `"ceiling_hours_by_channel":{"botapp":24,"chatapp":24,"sms":24,"webchat":24}`)
}

// Spec §4.4 rule 3: the cache is per company AND per bucket: a bucket
// asked for the first time is computed now, while a bucket already cached
// keeps its stale answer.
func TestAuditAnomaliesCachePerBucket(t *testing.T) {
	clock := fake.NewManualClock(t0)
	s := newServer(t, fake.WithClock(clock))
	b := seedBasic(t, s)
	get(t, s, "/conversations/anomalies").Data(t, 200) // caches unanswered and never_engaged
	b.co.Inbound(b.co.AddConversation(fake.Conversation{ContactID: b.ana}), "x", t0.Add(-5*time.Hour))
	b.co.AddConversation(fake.Conversation{ContactID: b.bob})
	clock.Advance(time.Minute)
	raw := get(t, s, "/conversations/anomalies?include=unassigned").Data(t, 200)
	assert.Contains(t, raw, `"unanswered":{"count":0,"items":[]}`)
	assert.Contains(t, raw, `"never_engaged":{"count":0}`)
	assert.Contains(t, raw, `"unassigned":{"count":1,`)
	clock.Advance(4 * time.Minute)
	raw = get(t, s, "/conversations/anomalies?include=unassigned").Data(t, 200)
	assert.Contains(t, raw, `"unanswered":{"count":1,`)
	assert.Contains(t, raw, `"never_engaged":{"count":1}`)
}

// D26: MISSING_PARAM names the field, for each required field of each
// contact endpoint, when absent, null or empty.
func TestAuditMissingParamNamesEachField(t *testing.T) {
	s := newServer(t)
	b := seedBasic(t, s)
	full := map[string]map[string]any{
		"POST /v1/chatapp/contacts":                 {"phone_number_id": b.chatPNID, "phone_number": "5511911112222", "name": "X"},
		"PATCH /v1/chatapp/contacts/custom-fields":  {"phone_number": b.anaPhone, "custom_fields": map[string]string{"a": "b"}},
		"DELETE /v1/chatapp/contacts/tags":          {"phone_number": b.anaPhone, "tag_ids": "x"},
		"POST /v1/chatapp/sequences/cancel":         {"phone_number": b.anaPhone},
		"GET /v1/chatapp/contacts/lookup?(query)":   {"phone_number": b.anaPhone},
		"PATCH /v1/chatapp/contacts/custom-fields ": {"phone_number": b.anaPhone, "custom_fields": map[string]string{}},
	}
	required := map[string][]string{
		"POST /v1/chatapp/contacts":                {"phone_number_id", "phone_number", "name"},
		"PATCH /v1/chatapp/contacts/custom-fields": {"phone_number", "custom_fields"},
		"DELETE /v1/chatapp/contacts/tags":         {"phone_number", "tag_ids"},
		"POST /v1/chatapp/sequences/cancel":        {"phone_number"},
		"GET /v1/chatapp/contacts/lookup?(query)":  {"phone_number"},
	}
	for ep, fields := range required {
		method, p, _ := strings.Cut(ep, " ")
		p = strings.TrimSuffix(p, "?(query)")
		for _, field := range fields {
			for _, variant := range []string{"absent", "null", "empty"} {
				t.Run(ep+" "+field+" "+variant, func(t *testing.T) {
					body := map[string]any{}
					for k, v := range full[ep] {
						body[k] = v
					}
					switch variant {
					case "absent":
						delete(body, field)
					case "null":
						body[field] = nil
					case "empty":
						if field == "custom_fields" {
							t.Skip("an empty object merges nothing; it is not missing")
						}
						body[field] = ""
					}
					var r resp
					if method == "GET" {
						if variant == "null" {
							t.Skip("no null in a query string")
						}
						q := url.Values{}
						for k, v := range body {
							q.Set(k, v.(string))
						}
						r = get(t, s, strings.TrimPrefix(p, "/v1")+"?"+q.Encode())
					} else {
						r = call(t, s, method, p, body)
					}
					assertError(t, r, 400, "MISSING_PARAM", field+" is required", "/api"+p, method, "")
				})
			}
		}
	}
	// An empty custom_fields object is a valid no-op.
	r := call(t, s, "PATCH", "/v1/chatapp/contacts/custom-fields", full["PATCH /v1/chatapp/contacts/custom-fields "])
	assert.Equal(t, 200, r.Status)
}

// Spec §4.8: custom field values are strings; null is not a string.
func TestAuditCustomFieldValuesAreStrings(t *testing.T) {
	s := newServer(t)
	b := seedBasic(t, s)
	for name, v := range map[string]any{"null": nil, "number": 3, "bool": true, "object": map[string]any{}, "array": []string{"a"}} {
		t.Run(name, func(t *testing.T) {
			r := call(t, s, "PATCH", "/v1/chatapp/contacts/custom-fields", map[string]any{"phone_number": b.anaPhone, "custom_fields": map[string]any{"plan": v}})
			assertError(t, r, 400, "INVALID_PARAM", "custom_fields.plan must be a string", "/api/v1/chatapp/contacts/custom-fields", "PATCH", "")
		})
	}
	ct, _ := s.Contact(b.ana)
	assert.Equal(t, map[string]string{"plan": "gold"}, ct.CustomFields, "a refused merge changes nothing")
}

// D16 on every contact endpoint: 8 and 15 digits are valid, 7 and 16 are
// INVALID_PARAM naming phone_number, whatever the formatting.
func TestAuditPhoneBoundsOnEveryContactEndpoint(t *testing.T) {
	s := newServer(t)
	b := seedBasic(t, s)
	type ep struct{ method, path string }
	eps := []ep{{"POST", "/v1/chatapp/contacts"}, {"GET", "/v1/chatapp/contacts/lookup"}, {"PATCH", "/v1/chatapp/contacts/custom-fields"},
		{"DELETE", "/v1/chatapp/contacts/tags"}, {"POST", "/v1/chatapp/sequences/cancel"}}
	for _, e := range eps {
		for _, ph := range []struct {
			v  string
			ok bool
		}{{"1234567", false}, {"+1 (234) 567", false}, {"1234567890123456", false}, {"abc", false}, {"12345678", true}, {"+123 456 789 012 345", true}} {
			t.Run(e.method+" "+e.path+" "+ph.v, func(t *testing.T) {
				body := map[string]any{"phone_number_id": b.chatPNID, "phone_number": ph.v, "name": "N", "custom_fields": map[string]string{}, "tag_ids": "x"}
				var r resp
				if e.method == "GET" {
					r = get(t, s, "/chatapp/contacts/lookup?phone_number="+url.QueryEscape(ph.v))
				} else {
					r = call(t, s, e.method, e.path, body)
				}
				if ph.ok {
					assert.Contains(t, []int{200, 201, 404}, r.Status, "%s", r.Body)
					return
				}
				assertError(t, r, 400, "INVALID_PARAM", "phone_number must have 8 to 15 digits", "/api"+e.path, e.method, "")
			})
		}
	}
}

// Spec §2.7, §4.6, D24: an API-created contact and the same phone arriving
// inbound are one contact; CONTACT_EXISTS only for the same account and
// phone; the same phone on another number is allowed; a failed create
// leaves nothing.
func TestAuditContactIdentity(t *testing.T) {
	s := newServer(t)
	b := seedBasic(t, s)
	chat2 := b.co.AddChannel(fake.ChannelAccount{Channel: convo.ChannelChatapp, ProviderIdentifier: "5511900000002"})
	create := func(pnid, ph string) resp {
		return call(t, s, "POST", "/v1/chatapp/contacts", map[string]string{"phone_number_id": pnid, "phone_number": ph, "name": "Zoe"})
	}
	require.Equal(t, 201, create(b.chatPNID, "+55 (21) 97777-1111").Status)
	n := len(b.co.Contacts())
	conv, _ := b.co.Receive(b.chat, "5521977771111", "Other name", fake.Message{Text: "hi"})
	assert.Len(t, b.co.Contacts(), n, "the inbound message found the API-created contact")
	st, _ := s.Conversation(conv)
	ct, _ := s.Contact(st.ContactID)
	assert.Equal(t, "Zoe", ct.Name)
	assert.Equal(t, "5521977771111", ct.PhoneNumber)
	assert.Equal(t, b.chat, ct.ChannelAccountID)
	// The lookup finds it, by either form of the number.
	r := get(t, s, "/chatapp/contacts/lookup?phone_number_id="+b.chatPNID+"&phone_number=%2B55+21+97777-1111")
	assert.JSONEq(t, `{"id":"`+ct.ID+`","phone_number":"5521977771111","name":"Zoe","email":null,"gender":null,"tag_names":""}`, r.Data(t, 200))

	assert.Equal(t, 409, create(b.chatPNID, "5521977771111").Status)
	assert.Equal(t, 201, create("5511900000002", "5521977771111").Status, "same phone, another number")
	assert.Equal(t, 409, create("5511900000002", "+55 21 97777 1111").Status)
	// Created inbound first, then by the API: exists.
	b.co.Receive(chat2, "5521966662222", "", fake.Message{Text: "hello"})
	assert.Equal(t, 409, create("5511900000002", "5521966662222").Status)
	// A botapp provider identifier is not a phone_number_id (D23).
	r = create("acme_bot", "5521955553333")
	assertError(t, r, 404, "CHANNEL_NOT_FOUND", "Channel not found for phone_number_id acme_bot.", contactsPath, "POST", "")
	_, found := b.co.ContactByPhone("", "5521955553333")
	assert.False(t, found)
}

// D25 and spec §1: without phone_number_id, the /chatapp endpoints search
// the company's chatapp numbers and take the contact with the most recent
// interaction; a botapp contact that has a phone is not a chatapp contact.
func TestAuditCompanyWideSearchIsChatappOnly(t *testing.T) {
	s := newServer(t)
	b := seedBasic(t, s)
	chat2 := b.co.AddChannel(fake.ChannelAccount{Channel: convo.ChannelChatapp, ProviderIdentifier: "5511900000002"})
	older := b.co.AddContact(fake.Contact{ChannelAccountID: chat2, PhoneNumber: "5521944441111", Name: "On chatapp", SequenceName: "Onboarding"})
	b.co.Receive(chat2, "5521944441111", "", fake.Message{Text: "x", At: t0.Add(-2 * time.Hour)})
	bot := b.co.AddContact(fake.Contact{ChannelAccountID: b.bot, PhoneNumber: "5521944441111", Name: "On botapp", SequenceName: "Bot flow"})
	b.co.Receive(b.bot, "5521944441111", "", fake.Message{Text: "newer", At: t0.Add(-time.Hour)})
	onlyBot := b.co.AddContact(fake.Contact{ChannelAccountID: b.bot, PhoneNumber: "5521933332222", Name: "Only bot"})

	r := get(t, s, "/chatapp/contacts/lookup?phone_number=5521944441111")
	assert.JSONEq(t, `{"id":"`+older+`","phone_number":"5521944441111","name":"On chatapp","email":null,"gender":null,"tag_names":""}`, r.Data(t, 200))
	r = call(t, s, "POST", "/v1/chatapp/sequences/cancel", map[string]string{"phone_number": "5521944441111"})
	assert.JSONEq(t, `{"canceled":true,"message":"Sequence canceled successfully."}`, r.Data(t, 200))
	bs, _ := s.Contact(bot)
	assert.Equal(t, fake.SequenceScheduled, bs.SequenceStatus, "the botapp contact's sequence is untouched")
	assertError(t, get(t, s, "/chatapp/contacts/lookup?phone_number=5521933332222"), 404, "CONTACT_NOT_FOUND", "Contact not found.", "/api/v1/chatapp/contacts/lookup", "GET", "")
	// By a botapp provider identifier: not a chatapp number either (D23, D25).
	assertError(t, get(t, s, "/chatapp/contacts/lookup?phone_number_id=acme_bot&phone_number=5521933332222"), 404, "CONTACT_NOT_FOUND", "Contact not found.", "/api/v1/chatapp/contacts/lookup", "GET", "")
	_ = onlyBot
}

// Spec §4.9, D10: several ids comma-separated; unknown ids, duplicates and
// ids of tags the contact lacks are ignored (200); tag_ids of only commas
// is missing.
func TestAuditRemoveTagsEdges(t *testing.T) {
	s := newServer(t)
	b := seedBasic(t, s)
	vip, lead := b.co.TagID("vip"), b.co.TagID("lead")
	other := b.co.TagID("not-on-ana")
	del := func(ids string) resp {
		return call(t, s, "DELETE", "/v1/chatapp/contacts/tags", map[string]string{"phone_number": b.anaPhone, "tag_ids": ids})
	}
	assert.Equal(t, 200, del("unknown-1,"+other).Status)
	ct, _ := s.Contact(b.ana)
	assert.Equal(t, []string{"vip", "lead"}, ct.Tags)
	assert.Equal(t, 200, del(vip+","+vip).Status)
	ct, _ = s.Contact(b.ana)
	assert.Equal(t, []string{"lead"}, ct.Tags)
	assertError(t, del(" , ,"), 400, "MISSING_PARAM", "tag_ids is required", "/api/v1/chatapp/contacts/tags", "DELETE", "")
	assert.Equal(t, 200, del(lead).Status)
	r := get(t, s, "/chatapp/contacts/lookup?phone_number="+b.anaPhone)
	assert.Contains(t, r.Data(t, 200), `"tag_names":""`)
	// A tag name is not a tag id.
	b.co.TagContact(b.ana, "vip")
	assert.Equal(t, 200, del("vip").Status)
	ct, _ = s.Contact(b.ana)
	assert.Equal(t, []string{"vip"}, ct.Tags)
}

// D20: another company's resources are "not found" on every endpoint that
// takes an id or a phone, and never appear in lists or counts.
func TestAuditTenancyEveryEndpoint(t *testing.T) {
	s := newServer(t)
	seedBasic(t, s)
	other := s.AddCompany("other-key")
	oacc := other.AddChannel(fake.ChannelAccount{Channel: convo.ChannelChatapp, ProviderIdentifier: "5511977770000"})
	oct := other.AddContact(fake.Contact{ChannelAccountID: oacc, PhoneNumber: "5521922221111", SequenceName: "S", Tags: []string{"t"}})
	oconv := other.AddConversation(fake.Conversation{ContactID: oct})
	other.Inbound(oconv, "waiting", t0.Add(-5*time.Hour))
	om := other.AddMessage(oconv, fake.Message{Sender: fake.SenderContact, At: t0.Add(-4 * time.Hour), Media: &fake.Media{MimeType: "image/png"}})
	other.AddConversation(fake.Conversation{ContactID: oct})
	tag := other.TagID("t")
	tests := []struct {
		name, method, path string
		body               any
		status             int
		code               convo.ErrorCode
	}{
		{"messages", "GET", "/v1/conversations/" + oconv + "/messages", nil, 404, "CONVERSATION_NOT_FOUND"},
		{"attachment", "GET", "/v1/attachments/" + s.MediaID(om), nil, 404, "MEDIA_NOT_FOUND"},
		{"lookup", "GET", "/v1/chatapp/contacts/lookup?phone_number=5521922221111", nil, 404, "CONTACT_NOT_FOUND"},
		{"lookup by their number", "GET", "/v1/chatapp/contacts/lookup?phone_number_id=5511977770000&phone_number=5521922221111", nil, 404, "CONTACT_NOT_FOUND"},
		{"custom fields", "PATCH", "/v1/chatapp/contacts/custom-fields", map[string]any{"phone_number": "5521922221111", "custom_fields": map[string]string{"a": "b"}}, 404, "CONTACT_NOT_FOUND"},
		{"tags", "DELETE", "/v1/chatapp/contacts/tags", map[string]string{"phone_number": "5521922221111", "tag_ids": tag}, 404, "CONTACT_NOT_FOUND"},
		{"cancel", "POST", "/v1/chatapp/sequences/cancel", map[string]string{"phone_number": "5521922221111"}, 404, "CONTACT_NOT_FOUND"},
		{"create on their number", "POST", "/v1/chatapp/contacts", map[string]string{"phone_number_id": "5511977770000", "phone_number": "5521900000000", "name": "X"}, 404, "CHANNEL_NOT_FOUND"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := call(t, s, tc.method, tc.path, tc.body)
			p := tc.path
			if i := strings.IndexByte(p, '?'); i >= 0 {
				p = p[:i]
			}
			assertError(t, r, tc.status, tc.code, "", "/api"+p, tc.method, "")
			// The owner sees it.
			ro := call(t, s, tc.method, tc.path, tc.body, bearer("other-key"))
			if tc.code == "CHANNEL_NOT_FOUND" {
				assert.Equal(t, 201, ro.Status, "%s", ro.Body)
			} else {
				assert.Equal(t, 200, ro.Status, "%s", ro.Body)
			}
		})
	}
	assert.Equal(t, `{"items":[],"next_cursor":null}`, get(t, s, "/conversations?status=all&channel_id="+oacc).Data(t, 200))
	assert.Equal(t, `{"items":[],"next_cursor":null}`, get(t, s, "/conversations?status=all&phone=5521922221111").Data(t, 200))
	raw := get(t, s, "/conversations/anomalies?include=unassigned").Data(t, 200)
	assert.Contains(t, raw, `"unanswered":{"count":0,"items":[]}`)
	assert.Contains(t, raw, `"never_engaged":{"count":0}`)
	assert.NotContains(t, get(t, s, "/channels").Data(t, 200), oacc)
	// A messages cursor of another company's conversation is no key to it.
	for i := 0; i < 2; i++ {
		other.Inbound(oconv, "more", t0.Add(-time.Duration(i+1)*time.Minute))
	}
	r := get(t, s, "/conversations/"+oconv+"/messages?limit=1", bearer("other-key"))
	var p msgPage
	require.NoError(t, json.Unmarshal([]byte(r.Data(t, 200)), &p))
	require.NotNil(t, p.NextCursor)
	assertError(t, get(t, s, "/conversations/"+oconv+"/messages?cursor="+url.QueryEscape(*p.NextCursor)), 404, "CONVERSATION_NOT_FOUND", "", "/api/v1/conversations/"+oconv+"/messages", "GET", "")
}

// Routing (doc.go): HEAD is served wherever GET is; other methods are 405
// with Allow, in the envelope, no 401 first; the path is exact: a trailing
// slash, an encoded slash and an empty segment are other paths (404).
func TestAuditMethodsAndPaths(t *testing.T) {
	s := newServer(t)
	tests := []struct {
		method, path string
		status       int
		code, allow  string
	}{
		{"HEAD", "/v1/channels", 200, "", ""},
		{"OPTIONS", "/v1/channels", 405, "METHOD_NOT_ALLOWED", "GET, HEAD"},
		{"OPTIONS", "/v1/chatapp/contacts", 405, "METHOD_NOT_ALLOWED", "POST"},
		{"PURGE", "/v1/conversations", 405, "METHOD_NOT_ALLOWED", "GET, HEAD"},
		{"get", "/v1/channels", 405, "METHOD_NOT_ALLOWED", "GET, HEAD"},
		{"GET", "/v1/channels/", 404, "NOT_FOUND", ""},
		{"GET", "/v1/channels%2F", 404, "NOT_FOUND", ""},
		{"GET", "/v1/channels%2f", 404, "NOT_FOUND", ""},
		{"GET", "/api/v1/conversations/", 404, "NOT_FOUND", ""},
		{"GET", "/v1//channels", 404, "NOT_FOUND", ""},
		{"GET", "/v1/./channels", 404, "NOT_FOUND", ""},
		{"GET", "/v1/x/../channels", 404, "NOT_FOUND", ""},
		{"GET", "/v1/conversations//messages", 404, "NOT_FOUND", ""},
		{"GET", "/v1", 404, "NOT_FOUND", ""},
		{"GET", "/v2/channels", 404, "NOT_FOUND", ""},
		{"GET", "/api/v1x/channels", 404, "NOT_FOUND", ""},
	}
	for _, tc := range tests {
		t.Run(tc.method+" "+tc.path, func(t *testing.T) {
			r := callRaw(t, s, tc.method, tc.path, nil, bearer(s.APIKey()))
			require.Equal(t, tc.status, r.Status, "%s", r.Body)
			assert.Equal(t, tc.allow, r.Header.Get("Allow"))
			if tc.code != "" {
				assertError(t, r, tc.status, convo.ErrorCode(tc.code), "", strings.Replace(strings.Replace(tc.path, "/v1", "/api/v1", 1), "/api/api/", "/api/", 1), tc.method, "")
			}
		})
	}
}

// Spec §4.10: canceled true once, then false, as 200; the contact's state
// says canceled; D25 without phone_number_id.
func TestAuditCancelSequenceStates(t *testing.T) {
	s := newServer(t)
	b := seedBasic(t, s)
	b.co.ScheduleSequence(b.ana, "Renewal")
	for i, want := range []string{
		`{"canceled":true,"message":"Sequence canceled successfully."}`,
		`{"canceled":false,"message":"No scheduled sequence to cancel."}`,
		`{"canceled":false,"message":"No scheduled sequence to cancel."}`,
	} {
		body := map[string]string{"phone_number": "+55 11 98765-4321"}
		if i == 1 {
			body["phone_number_id"] = b.chatPNID
		}
		assert.JSONEq(t, want, call(t, s, "POST", "/v1/chatapp/sequences/cancel", body).Data(t, 200))
	}
	ct, _ := s.Contact(b.ana)
	assert.Equal(t, fake.SequenceCanceled, ct.SequenceStatus)
	// A contact that never had a sequence: false.
	b.co.AddContact(fake.Contact{ChannelAccountID: b.chat, PhoneNumber: "5521911110000"})
	assert.JSONEq(t, `{"canceled":false,"message":"No scheduled sequence to cancel."}`,
		call(t, s, "POST", "/v1/chatapp/sequences/cancel", map[string]string{"phone_number": "5521911110000"}).Data(t, 200))
	// CANCEL_FAILED through a fault rule; the sequence stays scheduled.
	b.co.ScheduleSequence(b.ana, "Again")
	s.AddFault(fake.Fault{Method: "POST", Path: "/chatapp/sequences/cancel", Status: 500, Code: convo.CodeCancelFailed, Message: "The sequence could not be canceled.", Times: 1})
	r := call(t, s, "POST", "/v1/chatapp/sequences/cancel", map[string]string{"phone_number": b.anaPhone})
	assertError(t, r, 500, "CANCEL_FAILED", "The sequence could not be canceled.", "/api/v1/chatapp/sequences/cancel", "POST", "")
	ct, _ = s.Contact(b.ana)
	assert.Equal(t, fake.SequenceScheduled, ct.SequenceStatus)
}

// Server.Companies, Server.CompanyByKey.
func TestAuditCompaniesAccessors(t *testing.T) {
	s := newServer(t)
	k2 := s.AddCompany("k2")
	k3 := s.AddCompany("k3")
	all := s.Companies()
	require.Len(t, all, 3)
	assert.Equal(t, []string{s.Company().ID(), k2.ID(), k3.ID()}, []string{all[0].ID(), all[1].ID(), all[2].ID()})
	assert.Equal(t, "k3", all[2].APIKey())
	got, ok := s.CompanyByKey("k2")
	require.True(t, ok)
	assert.Equal(t, k2.ID(), got.ID())
	got, ok = s.CompanyByKey(fake.DefaultAPIKey)
	require.True(t, ok)
	assert.Equal(t, s.Company().ID(), got.ID())
	for _, k := range []string{"", "k", "k22", "K2"} {
		_, ok = s.CompanyByKey(k)
		assert.False(t, ok, k)
	}
	// Seeded companies are reachable too.
	require.NoError(t, s.Load(&fake.Seed{Companies: []fake.CompanySeed{{}, {APIKey: "seeded"}}}))
	require.Len(t, s.Companies(), 2)
	got, ok = s.CompanyByKey("seeded")
	require.True(t, ok)
	assert.Equal(t, s.Companies()[1].ID(), got.ID())
	_, ok = s.CompanyByKey("k2")
	assert.False(t, ok, "Load replaced the companies")
}

// Server.RemoveFault reports whether the rule existed; Server.Faults lists
// rules with their remaining uses.
func TestAuditFaultListing(t *testing.T) {
	s := newServer(t)
	a := s.AddFault(fake.Fault{Path: "/v1/channels", Status: 503, Times: 2})
	bID := s.AddFault(fake.Fault{Method: "POST", Status: 500})
	fs := s.Faults()
	require.Len(t, fs, 2)
	assert.Equal(t, a, fs[0].ID)
	assert.Equal(t, "/channels", fs[0].Fault.Path)
	assert.Equal(t, 2, fs[0].Remaining)
	assert.Equal(t, 0, fs[1].Remaining)
	get(t, s, "/channels")
	assert.Equal(t, 1, s.Faults()[0].Remaining)
	get(t, s, "/channels")
	assert.Len(t, s.Faults(), 1, "a used-up rule is gone")
	assert.False(t, s.RemoveFault(a))
	assert.True(t, s.RemoveFault(bID))
	assert.False(t, s.RemoveFault(bID))
	assert.False(t, s.RemoveFault(12345))
	assert.Empty(t, s.Faults())
}

// Seed now on a real clock (a decision: Load refuses it and changes
// nothing); on a manual clock, a seed that does not load leaves the clock.
func TestAuditSeedNowAndTheClock(t *testing.T) {
	now := t0.Add(-72 * time.Hour)
	real, err := fake.NewHandler()
	require.NoError(t, err)
	before := real.Clock().Now()
	err = real.Load(&fake.Seed{Now: &now, Companies: []fake.CompanySeed{{}}})
	require.Error(t, err)
	assert.ErrorIs(t, err, fake.ErrRealClock)
	assert.Contains(t, err.Error(), "seed: now: the server's clock is real")
	assert.NotContains(t, err.Error(), "WithClock", "the text names no Go call")
	assert.WithinDuration(t, before, real.Clock().Now(), time.Minute, "the real clock was not shifted")
	// Without now, a real clock loads fine.
	require.NoError(t, real.Load(fake.DemoSeed()))

	s := newServer(t)
	bad := &fake.Seed{Now: &now, Companies: []fake.CompanySeed{{Channels: []fake.ChannelAccount{{Channel: "sms"}}}}}
	require.Error(t, s.Load(bad))
	assert.Equal(t, t0, s.Clock().Now(), "a seed that does not load does not move the clock")
	require.NoError(t, s.Load(&fake.Seed{Now: &now}))
	assert.Equal(t, now, s.Clock().Now())
	// WithSeed with a now and a real clock fails the start clearly.
	_, err = fake.NewHandler(fake.WithClock(fake.NewRealClock()), fake.WithSeed(&fake.Seed{Now: &now}))
	require.Error(t, err)
}

// Seed errors name the JSON path down to the field (SEED.md).
func TestAuditSeedErrorPaths(t *testing.T) {
	head := `{"companies":[{"channels":[{"ref":"c","channel":"chatapp"},{"ref":"b","channel":"botapp"}],"contacts":[{"ref":"a","channel":"c","phone":"5511987654321"}],`
	tests := []struct{ doc, want string }{
		{head + `"conversations":[{"contact":"a","messages":[{"text":"x"},{"sender":"martian"}]}]}]}`,
			`seed: companies[0].conversations[0].messages[1].sender: unknown sender "martian"`},
		{head + `"conversations":[{"contact":"a","messages":[{"direction":"sideways"}]}]}]}`,
			`companies[0].conversations[0].messages[0].direction: unknown direction "sideways"`},
		{head + `"conversations":[{"contact":"a","messages":[{"sender":"agent","direction":"inbound"}]}]}]}`,
			`companies[0].conversations[0].messages[0].direction: sender agent cannot send a message inbound`},
		{head + `"conversations":[{"contact":"a","messages":[{"status":"delivred"}]}]}]}`,
			`companies[0].conversations[0].messages[0].status: unknown status "delivred"`},
		{head + `"conversations":[{"contact":"a","messages":[{"type":"image","media":{"status":"lost"}}]}]}]}`,
			`companies[0].conversations[0].messages[0].media.status: unknown status "lost"`},
		{head + `"conversations":[{"contact":"a","messages":[{"type":"image","media":{"data_base64":"%%%"}}]}]}]}`,
			`companies[0].conversations[0].messages[0].media.data_base64: not base64`},
		{head + `"conversations":[{"contact":"a","messages":[{"reactions":[{"emoji":"x"},{"emoji":"y","direction":"up"}]}]}]}]}`,
			`companies[0].conversations[0].messages[0].reactions[1].direction: unknown direction "up"`},
		{head + `"conversations":[{"contact":"a","messages":[{"reactions":[{"emoji":""}]}]}]}]}`,
			`companies[0].conversations[0].messages[0].reactions[0].emoji: emoji is empty`},
		{head + `"conversations":[{"contact":"a","messages":[{"reactions":[{"emoji":"x","at":"now"}]}]}]}]}`,
			`companies[0].conversations[0].messages[0].reactions[0].at: "now" is not an RFC 3339 date-time`},
		{head + `"conversations":[{"contact":"a","messages":[{"at":"2026-01-01T00:00:00Z","ago":"1h"}]}]}]}`,
			`companies[0].conversations[0].messages[0].at: give at or ago, not both`},
		{head + `"conversations":[{"contact":"a","status":"closed"}]}]}`,
			`companies[0].conversations[0].status: unknown status "closed"`},
		{head + `"conversations":[{"contact":"zed"}]}]}`,
			`companies[0].conversations[0].contact: unknown contact "zed"`},
		{head + `"conversations":[{"contact":"a","created_ago":"soon"}]}]}`,
			`companies[0].conversations[0].created_ago: bad duration "soon"`},
		{head + `"conversations":[{"id":"a1","contact":"a"},{"id":"a1","contact":"a"}]}]}`,
			`companies[0].conversations[1].id: id "a1" is already used`},
		{`{"companies":[{"channels":[{"ref":"c","channel":"chatapp"}],"contacts":[{"channel":"c"}]}]}`,
			`companies[0].contacts[0].phone: a chatapp contact needs a phone`},
		{`{"companies":[{"channels":[{"ref":"c","channel":"chatapp"}],"contacts":[{"channel":"c","phone":"5511987654321"},{"channel":"c","phone":"+55 11 98765-4321"}]}]}`,
			`companies[0].contacts[1].phone: 5511987654321 is already contact`},
		{`{"companies":[{"channels":[{"channel":"chatapp","provider_identifier":"1"},{"channel":"chatapp","provider_identifier":"1"}]}]}`,
			`companies[0].channels[1].provider_identifier: provider identifier "1" is already used`},
		{`{"companies":[{"channels":[{"channel":"telegram"}]}]}`,
			`companies[0].channels[0].channel: unknown channel "telegram"`},
		{`{"companies":[{},{"api_key":"k","channels":[{"channel":"chatapp"},{"channel":7}]}]}`,
			`companies[1].channels[1].channel (line 1, column 79): want string, got JSON number`},
		{`{"companies":[{"contacts":[{"channel":"x","tags":["a",3]}]}]}`,
			`companies[0].contacts[0].tags[1] (line 1`},
		{`{"now":"yesterday","companies":[]}`, `seed: now: "yesterday" is not an RFC 3339 date-time`},
	}
	for _, tc := range tests {
		t.Run(tc.want, func(t *testing.T) {
			_, err := fake.LoadSeed(strings.NewReader(tc.doc))
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}

// Query strings (doc.go): a malformed escape is 400 INVALID_PARAM after
// authentication; a ";" is part of a value, as on the service's stack.
func TestAuditMalformedQueryStrings(t *testing.T) {
	s := newServer(t)
	seedBasic(t, s)
	r := callRaw(t, s, "GET", "/v1/conversations?limit=%zz", nil, bearer(s.APIKey()))
	assertError(t, r, 400, "INVALID_PARAM", "The query string is malformed.", "/api/v1/conversations", "GET", "")
	r = callRaw(t, s, "GET", "/v1/conversations?limit=%zz", nil)
	assertError(t, r, 401, "UNAUTHORIZED", "Invalid or missing API key.", "/api/v1/conversations", "GET", "")
	r = get(t, s, "/conversations?status=open;resolved")
	assertError(t, r, 400, "INVALID_PARAM", "status must be one of open, resolved, archived, all", "/api/v1/conversations", "GET", "")
	r = get(t, s, "/chatapp/contacts/lookup?phone_number=5511987654321;x")
	assert.Equal(t, 200, r.Status, "the digits of 5511987654321;x are a phone: %s", r.Body)
	reqs := s.Requests()
	assert.Equal(t, []string{"open;resolved"}, reqs[len(reqs)-2].Query["status"])
}

// Spec §2.6: unanswered means nothing went out after the contact spoke; a
// reply that failed did not go out (typically an automation outside the
// chatapp session window), so the conversation stays unanswered, and a
// failed automation reply does not make it automation_only.
func TestAuditFailedReplyDidNotGoOut(t *testing.T) {
	s := newServer(t, fake.WithAnomalyCacheTTL(0))
	b := seedBasic(t, s)
	c := b.co.AddConversation(fake.Conversation{ID: "c-failed", ContactID: b.ana})
	b.co.Inbound(c, "hello?", t0.Add(-6*time.Hour))
	b.co.AddMessage(c, fake.Message{Sender: fake.SenderAutomation, Text: "auto", Status: "failed", FailureReason: "outside session window", At: t0.Add(-5 * time.Hour)})
	q := func() resp { return get(t, s, "/conversations/anomalies?include=automation_only") }
	raw := q().Data(t, 200)
	assert.Contains(t, raw, `"unanswered":{"count":1,"items":[{"conversation_id":"c-failed"`)
	assert.Contains(t, raw, `"automation_only":{"count":0,"items":[]}`)
	// A queued reply is on its way: it counts.
	b.co.AddMessage(c, fake.Message{Sender: fake.SenderAutomation, Text: "retry", Status: "queued", At: t0.Add(-4 * time.Hour)})
	raw = q().Data(t, 200)
	assert.Contains(t, raw, `"unanswered":{"count":0,"items":[]}`)
	assert.Contains(t, raw, `"automation_only":{"count":1,`)
}

// doc.go: system messages count neither as the contact speaking nor as a
// reply, whoever is named as their sender.
func TestAuditSystemTypeIsNeutral(t *testing.T) {
	s := newServer(t, fake.WithAnomalyCacheTTL(0))
	b := seedBasic(t, s)
	only := b.co.AddConversation(fake.Conversation{ID: "only-system", ContactID: b.ana})
	b.co.AddMessage(only, fake.Message{Sender: fake.SenderContact, Type: "system", At: t0.Add(-5 * time.Hour)})
	waiting := b.co.AddConversation(fake.Conversation{ID: "waiting", ContactID: b.bob})
	b.co.Inbound(waiting, "hi", t0.Add(-6*time.Hour))
	b.co.AddMessage(waiting, fake.Message{Sender: fake.SenderAgent, Type: "system", At: t0.Add(-5 * time.Hour)})
	raw := get(t, s, "/conversations/anomalies").Data(t, 200)
	assert.Contains(t, raw, `"never_engaged":{"count":1}`)
	assert.Contains(t, raw, `"unanswered":{"count":1,"items":[{"conversation_id":"waiting"`)
	_, err := fake.LoadSeed(strings.NewReader(`{"companies":[{"channels":[{"ref":"c","channel":"chatapp"}],"contacts":[{"ref":"a","channel":"c","phone":"5511987654321"}],
	  "conversations":[{"contact":"a","unread_count":-1}]}]}`))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "companies[0].conversations[0].unread_count: -1 is negative")
}

// SEED.md: unknown fields are refused, named by their JSON path.
func TestAuditSeedUnknownFieldPath(t *testing.T) {
	for doc, want := range map[string]string{
		`{"companies":[{"unknown":1}]}`: `seed: companies[0].unknown: unknown field`,
		`{"companies":[{"channels":[{"channel":"chatapp"}],"contacts":[{"channel":"x"},{"channel":"x","colour":"red"}]}]}`: `seed: companies[0].contacts[1].colour: unknown field`,
		`{"companies":[{"conversations":[{"contact":"a","messages":[{"media":{"url":"http://x"}}]}]}]}`:                    `seed: companies[0].conversations[0].messages[0].media.url: unknown field`,
		`{"version":2,"companies":[]}`: `seed: version: unknown field`,
	} {
		_, err := fake.LoadSeed(strings.NewReader(doc))
		require.Error(t, err)
		assert.Contains(t, err.Error(), want)
	}
}
