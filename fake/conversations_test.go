package fake_test

import (
	"encoding/json"
	"net/url"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	convo "github.com/convoapi/convo-go"
	"github.com/convoapi/convo-go/fake"
)

type convPage struct {
	Items []struct {
		ID string `json:"id"`
	} `json:"items"`
	NextCursor *string `json:"next_cursor"`
}

func listConvs(t *testing.T, s *fake.Server, q url.Values) convPage {
	t.Helper()
	r := get(t, s, "/conversations?"+q.Encode())
	var p convPage
	require.NoError(t, json.Unmarshal([]byte(r.Data(t, 200)), &p))
	return p
}

func (p convPage) ids() []string {
	out := []string{}
	for _, it := range p.Items {
		out = append(out, it.ID)
	}
	return out
}

func TestConversationItemExact(t *testing.T) {
	s, b := newBasic(t)
	cv := b.co.AddConversation(fake.Conversation{ID: uid("c1"), ContactID: b.ana, AssignedTo: "Marta", CreatedAt: t0.Add(-3 * time.Hour)})
	b.co.Inbound(cv, "hi", t0.Add(-2*time.Hour))
	b.co.Inbound(cv, "anyone?", t0.Add(-90*time.Minute))
	b.co.Reply(cv, fake.SenderAutomation, "We will answer soon", t0.Add(-89*time.Minute))
	r := get(t, s, "/conversations")
	assert.JSONEq(t, `{"items":[{"id":"`+uid("c1")+`","contact_id":"`+b.ana+`","channel":"chatapp","channel_account_id":"`+b.chat+`",
	  "channel_identifier":"5511987654321","status":"open","assigned":true,"unread_count":2,
	  "last_inbound_at":"2026-11-22T08:30:00.000Z","last_message_at":"2026-11-22T08:31:00.000Z","created_at":"2026-11-22T07:00:00.000Z"}],
	  "next_cursor":null}`, r.Data(t, 200))
}

func TestConversationFilters(t *testing.T) {
	s, b := newBasic(t)
	co := b.co
	// Ana has a second identity on another chatapp number (another contact).
	chat2 := co.AddChannel(fake.ChannelAccount{Channel: convo.ChannelChatapp, ProviderIdentifier: "5511900000002"})
	ana2 := co.AddContact(fake.Contact{ChannelAccountID: chat2, PhoneNumber: "5511987654321", Name: "Ana"})
	mk := func(id, contact string, status convo.ConversationStatus, agent string, lastAgo time.Duration) string {
		c := co.AddConversation(fake.Conversation{ID: uid(id), ContactID: contact, Status: status, AssignedTo: agent, CreatedAt: t0.Add(-48 * time.Hour)})
		co.Inbound(c, "msg", t0.Add(-lastAgo))
		return c
	}
	anaOpen := mk("a-open", b.ana, "", "Marta", 1*time.Hour)
	anaRes := mk("a-res", b.ana, convo.ConversationResolved, "", 5*time.Hour)
	ana2Open := mk("a2-open", ana2, "", "", 2*time.Hour)
	botOpen := mk("bot-open", b.bob, "", "", 3*time.Hour)
	webArch := mk("web-arch", b.visitor, convo.ConversationArchived, "Leo", 4*time.Hour)

	tests := []struct {
		q    string
		want []string
	}{
		{"", []string{anaOpen, ana2Open, botOpen}},
		{"status=open", []string{anaOpen, ana2Open, botOpen}},
		{"status=resolved", []string{anaRes}},
		{"status=archived", []string{webArch}},
		{"status=all", []string{anaOpen, ana2Open, botOpen, webArch, anaRes}},
		{"status=all&channel=webchat", []string{webArch}},
		{"status=all&channel=chatapp", []string{anaOpen, ana2Open, anaRes}},
		{"channel=botapp", []string{botOpen}},
		{"status=all&channel_id=" + chat2, []string{ana2Open}},
		{"status=all&channel_id=" + b.widget, []string{webArch}},
		{"status=all&channel_id=unknown", []string{}},
		{"status=all&assigned=true", []string{anaOpen, webArch}},
		{"assigned=false", []string{ana2Open, botOpen}},
		{"status=all&since=2026-11-22T07:00:00.000Z", []string{anaOpen, ana2Open, botOpen}}, // inclusive
		{"status=all&until=2026-11-22T07:00:00.000Z", []string{webArch, anaRes}},            // exclusive
		{"status=all&since=2026-11-22T06:00:00Z&until=2026-11-22T08:00:00Z", []string{botOpen, webArch}},
		{"status=all&channel_identifier=bob-77", []string{botOpen}},
		{"status=all&channel_identifier=5511987654321", []string{anaOpen, ana2Open, anaRes}},
		{"status=all&phone=%2B55+11+98765-4321", []string{anaOpen, ana2Open, anaRes}}, // every account
		{"status=all&phone=5511000000000", []string{}},
	}
	for _, tc := range tests {
		t.Run(tc.q, func(t *testing.T) {
			q, err := url.ParseQuery(tc.q)
			require.NoError(t, err)
			assert.Equal(t, tc.want, listConvs(t, s, q).ids())
		})
	}
}

func TestConversationPaginationStable(t *testing.T) {
	clock := fake.NewManualClock(t0)
	s, b := newBasic(t, fake.WithClock(clock))
	var convs []string
	for i := 0; i < 60; i++ {
		c := b.co.AddConversation(fake.Conversation{ContactID: b.ana})
		b.co.Inbound(c, "x", t0.Add(-time.Duration(i/2+1)*time.Minute)) // pairs share a time
		convs = append(convs, c)
	}
	p := listConvs(t, s, nil)
	assert.Len(t, p.Items, 25) // default limit
	got := p.ids()
	for p.NextCursor != nil {
		// Meanwhile: an old conversation gets a message and a new one appears.
		clock.Advance(time.Minute)
		b.co.Inbound(convs[59], "bump", time.Time{})
		b.co.Inbound(b.co.AddConversation(fake.Conversation{ContactID: b.ana}), "new", time.Time{})
		p = listConvs(t, s, url.Values{"cursor": {*p.NextCursor}, "limit": {"25"}})
		got = append(got, p.ids()...)
	}
	assert.Len(t, got, 60)
	assert.ElementsMatch(t, convs, got)
	// The page order is last_message_at descending.
	assert.Contains(t, convs[:2], got[0])
	// Limit 100 and filters carried by the cursor.
	p = listConvs(t, s, url.Values{"limit": {"100"}, "status": {"all"}})
	assert.Len(t, p.Items, 62)
	assert.Nil(t, p.NextCursor)
}

// listConversations (docs/behaviour.md, Pagination): with a cursor, the list goes on with the filters of the
// first page; filters sent along with the cursor are validated, then ignored.
func TestConversationCursorKeepsItsFilters(t *testing.T) {
	s, b := newBasic(t)
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

// listConversations (docs/behaviour.md, Conversations): every bad filter
// value is 400 INVALID_PARAM naming the parameter (TestIntegerParameters
// has limit); phone is normalized (any formatting), 8 to 15 digits.
func TestConversationFilterValues(t *testing.T) {
	s, b := newBasic(t)
	c := b.co.AddConversation(fake.Conversation{ContactID: b.ana, AssignedTo: "Marta"})
	b.co.Inbound(c, "x", t0.Add(-time.Hour))
	empty := b.co.AddConversation(fake.Conversation{ContactID: b.bob, CreatedAt: t0.Add(-2 * time.Hour)})
	const (
		assigned = "assigned must be true or false"
		status   = "status must be one of open, resolved, archived, all"
		channel  = "channel must be one of chatapp, botapp, webchat"
		date     = " must be an RFC 3339 date-time, e.g. 2026-11-22T10:04:05.123Z"
		phone    = "phone must have 8 to 15 digits"
	)
	tests := []struct {
		q    string
		want []string // nil: 400 naming the parameter
		msg  string
	}{
		{"assigned=true", []string{c}, ""},
		{"assigned=false", []string{empty}, ""},
		{"assigned=TRUE", nil, assigned},
		{"assigned=True", nil, assigned},
		{"assigned=0", nil, assigned},
		{"assigned=1", nil, assigned},
		{"assigned=yes", nil, assigned},
		{"assigned=", nil, assigned},
		{"status=", nil, status},
		{"status=OPEN", nil, status},
		{"status=closed", nil, status},
		{"channel=Chatapp", nil, channel},
		{"channel=sms", nil, channel},
		{"channel=", nil, channel},
		{"since=", nil, "since" + date},
		{"since=2026-11-22", nil, "since" + date},
		{"until=2026-11-22%2010:00:00Z", nil, "until" + date},
		{"until=tomorrow", nil, "until" + date},
		{"phone=", nil, phone},
		{"phone=123", nil, phone},
		{"phone=1234567", nil, phone},
		{"phone=1234567890123456", nil, phone},
		{"phone=%2B55+(11)+abc+88888-0004", nil, "phone must be a country code plus digits; only spaces and + - ( ) . may separate them"},
		{"cursor=forged", nil, "cursor is invalid: pass the next_cursor of the previous page unchanged"},
		{"phone=%2B55+(11)+98765-4321", []string{c}, ""},
		{"phone=12345678", []string{}, ""},
		// A conversation without messages never matches since or until.
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
