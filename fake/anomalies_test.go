package fake_test

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	convo "github.com/convoapi/convo-go"
	"github.com/convoapi/convo-go/fake"
)

func TestAnomaliesExactReport(t *testing.T) {
	s := newServer(t)
	b := seedBasic(t, s)
	co := b.co
	h := func(x float64) time.Time { return t0.Add(-time.Duration(x * float64(time.Hour))) }
	conv := func(id, contact, agent string) string {
		return co.AddConversation(fake.Conversation{ID: id, ContactID: contact, AssignedTo: agent})
	}
	// Waiting 5.25 h, nothing went out: unanswered, unassigned.
	c1 := conv("c1", b.ana, "")
	co.Inbound(c1, "hello?", h(5.25))
	// Waiting 10 h on botapp, assigned: unanswered only.
	c2 := conv("c2", b.bob, "Marta")
	co.Inbound(c2, "help", h(10))
	// Replied by automation only: automation_only (and unassigned), not unanswered.
	c3 := conv("c3", b.visitor, "")
	co.Inbound(c3, "price?", h(6))
	co.Reply(c3, fake.SenderAutomation, "A human will answer", h(5.9))
	// Replied by an agent, then the phone app: nowhere.
	c4 := conv("c4", b.ana, "Leo")
	co.Inbound(c4, "ok", h(7))
	co.Reply(c4, fake.SenderPhone, "sure", h(6.5))
	// Automation then agent: not automation_only.
	c5 := conv("c5", b.bob, "")
	co.Inbound(c5, "x", h(8))
	co.Reply(c5, fake.SenderAutomation, "auto", h(7.9))
	co.Reply(c5, fake.SenderAgent, "human", h(7.8))
	// Too recent (below threshold 4 h) and too old (beyond the 24 h ceiling).
	co.Inbound(conv("c6", b.ana, ""), "x", h(3.9))
	co.Inbound(conv("c7", b.ana, ""), "x", h(24.1))
	// Exactly at the threshold and at the ceiling: inside.
	co.Inbound(conv("c8", b.visitor, "Ana"), "x", h(4))
	co.Inbound(conv("c9", b.bob, "Ana"), "x", h(24))
	// Never engaged: open, no inbound; resolved ones are not counted.
	co.Reply(conv("n1", b.ana, ""), fake.SenderAutomation, "promo", h(30))
	conv("n2", b.bob, "")
	co.AddConversation(fake.Conversation{ContactID: b.ana, Status: convo.ConversationResolved})
	res := co.AddConversation(fake.Conversation{ContactID: b.ana, Status: convo.ConversationResolved})
	co.Inbound(res, "resolved, waiting", h(5))
	// A system message is neither an inbound nor a reply.
	c10 := conv("c10", b.visitor, "Ana")
	co.Inbound(c10, "x", h(4.5))
	co.AddMessage(c10, fake.Message{Sender: fake.SenderSystem, At: h(4.4)})

	item := func(id, contact, channel, account string, in float64, last float64, wait string, assigned bool, unread int) string {
		return fmt.Sprintf(`{"conversation_id":%q,"contact_id":%q,"channel":%q,"channel_account_id":%q,"last_inbound_at":%q,"last_message_at":%q,"waiting_hours":%s,"assigned":%t,"unread_count":%d}`,
			id, contact, channel, account, h(in).UTC().Format("2006-01-02T15:04:05.000Z"), h(last).UTC().Format("2006-01-02T15:04:05.000Z"), wait, assigned, unread)
	}
	r := get(t, s, "/conversations/anomalies?include=unassigned,automation_only")
	raw := r.Data(t, 200)
	assert.Contains(t, raw, `"waiting_hours":5.3`) // one decimal, rendered as such
	assert.Contains(t, raw, `"waiting_hours":24.0`)
	assert.JSONEq(t, `{"window":{"threshold_hours":4,"ceiling_hours_by_channel":{"chatapp":24,"sms":24,"botapp":24,"webchat":24}},
	 "buckets":{
	  "unanswered":{"count":5,"items":[`+
		item("c9", b.bob, "botapp", b.bot, 24, 24, "24.0", true, 1)+","+
		item("c2", b.bob, "botapp", b.bot, 10, 10, "10.0", true, 1)+","+
		item("c1", b.ana, "chatapp", b.chat, 5.25, 5.25, "5.3", false, 1)+","+
		item("c10", b.visitor, "webchat", b.widget, 4.5, 4.4, "4.5", true, 1)+","+
		item("c8", b.visitor, "webchat", b.widget, 4, 4, "4.0", true, 1)+`]},
	  "never_engaged":{"count":2},
	  "unassigned":{"count":3,"items":[`+
		item("c5", b.bob, "botapp", b.bot, 8, 7.8, "8.0", false, 0)+","+
		item("c3", b.visitor, "webchat", b.widget, 6, 5.9, "6.0", false, 1)+","+
		item("c1", b.ana, "chatapp", b.chat, 5.25, 5.25, "5.3", false, 1)+`]},
	  "automation_only":{"count":1,"items":[`+
		item("c3", b.visitor, "webchat", b.widget, 6, 5.9, "6.0", false, 1)+`]}
	 }}`, raw)

	// Opt-in buckets only when asked.
	r = get(t, s, "/conversations/anomalies?threshold_hours=9&limit=1")
	var data struct {
		Window  map[string]any             `json:"window"`
		Buckets map[string]json.RawMessage `json:"buckets"`
	}
	require.NoError(t, json.Unmarshal([]byte(r.Data(t, 200)), &data))
	assert.ElementsMatch(t, []string{"unanswered", "never_engaged"}, keysOf(data.Buckets))
	assert.Equal(t, float64(9), data.Window["threshold_hours"])
	assert.JSONEq(t, `{"count":2,"items":[`+item("c9", b.bob, "botapp", b.bot, 24, 24, "24.0", true, 1)+`]}`, string(data.Buckets["unanswered"]))
	assert.JSONEq(t, `{"count":2}`, string(data.Buckets["never_engaged"]))
}

func TestAnomaliesTiesByConversationID(t *testing.T) {
	s := newServer(t)
	b := seedBasic(t, s)
	for _, id := range []string{"c-b", "c-c", "c-a"} {
		b.co.Inbound(b.co.AddConversation(fake.Conversation{ID: id, ContactID: b.ana}), "x", t0.Add(-5*time.Hour))
	}
	var data struct {
		Buckets struct {
			Unanswered struct {
				Items []struct {
					ID string `json:"conversation_id"`
				} `json:"items"`
			} `json:"unanswered"`
		} `json:"buckets"`
	}
	require.NoError(t, json.Unmarshal([]byte(get(t, s, "/conversations/anomalies").Data(t, 200)), &data))
	var got []string
	for _, it := range data.Buckets.Unanswered.Items {
		got = append(got, it.ID)
	}
	assert.Equal(t, []string{"c-a", "c-b", "c-c"}, got)
}

func TestAnomaliesParams(t *testing.T) {
	s := newServer(t)
	details := `{"valid_buckets":["unanswered","never_engaged","unassigned","automation_only"],"opt_in":["unassigned","automation_only"]}`
	tests := []struct {
		q, code, msg, details string
	}{
		{"include=bogus", "INVALID_BUCKET", "Unknown bucket: bogus.", details},
		{"include=unassigned,Automation_Only", "INVALID_BUCKET", "Unknown bucket: Automation_Only.", details},
		{"threshold_hours=0", "INVALID_PARAM", "threshold_hours must be an integer from 1 to 24", ""},
		{"threshold_hours=25", "INVALID_PARAM", "threshold_hours must be an integer from 1 to 24", ""},
		{"threshold_hours=4.5", "INVALID_PARAM", "threshold_hours must be an integer from 1 to 24", ""},
		{"limit=0", "INVALID_PARAM", "limit must be an integer from 1 to 100", ""},
		{"limit=101", "INVALID_PARAM", "limit must be an integer from 1 to 100", ""},
	}
	for _, tc := range tests {
		t.Run(tc.q, func(t *testing.T) {
			assertError(t, get(t, s, "/conversations/anomalies?"+tc.q), 400, convo.ErrorCode(tc.code), tc.msg, "/api/v1/conversations/anomalies", "GET", tc.details)
		})
	}
	for _, q := range []string{"threshold_hours=1", "threshold_hours=24", "limit=1", "limit=100", "include=", "include=unanswered,never_engaged"} {
		assert.Equal(t, 200, get(t, s, "/conversations/anomalies?"+q).Status, q)
	}
}

func TestAnomaliesCacheOnFakeClock(t *testing.T) {
	clock := fake.NewManualClock(t0)
	s := newServer(t, fake.WithClock(clock), fake.WithAnomalyCacheTTL(5*time.Minute))
	b := seedBasic(t, s)
	count := func(q string) float64 {
		m := map[string]any{}
		require.NoError(t, json.Unmarshal([]byte(get(t, s, "/conversations/anomalies"+q).Data(t, 200)), &m))
		return m["buckets"].(map[string]any)["unanswered"].(map[string]any)["count"].(float64)
	}
	assert.Equal(t, 0.0, count(""))
	// A conversation that just entered is absent from the next call...
	b.co.Inbound(b.co.AddConversation(fake.Conversation{ContactID: b.ana}), "x", t0.Add(-5*time.Hour))
	assert.Equal(t, 0.0, count(""))
	clock.Advance(4*time.Minute + 59*time.Second)
	assert.Equal(t, 0.0, count(""))
	// ...until the cache expires on the fake clock.
	clock.Advance(time.Second)
	assert.Equal(t, 1.0, count(""))
	// The cache is per company.
	other := s.AddCompany("other-key")
	r := get(t, s, "/conversations/anomalies", bearer(other.APIKey()))
	assert.Contains(t, r.Data(t, 200), `"unanswered":{"count":0,"items":[]}`)
}

func TestAnomaliesItemsCappedWorstFirst(t *testing.T) {
	s := newServer(t)
	b := seedBasic(t, s)
	for i := 0; i < 150; i++ {
		c := b.co.AddConversation(fake.Conversation{ID: fmt.Sprintf("c%03d", i), ContactID: b.ana})
		b.co.Inbound(c, "x", t0.Add(-4*time.Hour-time.Duration(i)*time.Minute)) // c149 waits longest
	}
	var data struct {
		Buckets struct {
			Unanswered struct {
				Count int `json:"count"`
				Items []struct {
					ID string `json:"conversation_id"`
				} `json:"items"`
			} `json:"unanswered"`
		} `json:"buckets"`
	}
	require.NoError(t, json.Unmarshal([]byte(get(t, s, "/conversations/anomalies?limit=100").Data(t, 200)), &data))
	u := data.Buckets.Unanswered
	assert.Equal(t, 150, u.Count)
	require.Len(t, u.Items, 100)
	for i, it := range u.Items {
		assert.Equal(t, fmt.Sprintf("c%03d", 149-i), it.ID)
	}
	// The default limit is 20.
	require.NoError(t, json.Unmarshal([]byte(get(t, s, "/conversations/anomalies").Data(t, 200)), &data))
	assert.Len(t, data.Buckets.Unanswered.Items, 20)
}

func TestAnomaliesFollowStatusAndAssignmentChanges(t *testing.T) {
	s := newServer(t, fake.WithAnomalyCacheTTL(0))
	b := seedBasic(t, s)
	c := b.co.AddConversation(fake.Conversation{ContactID: b.ana})
	b.co.Inbound(c, "x", t0.Add(-5*time.Hour))
	q := "/conversations/anomalies?include=unassigned"
	assert.Contains(t, get(t, s, q).Data(t, 200), `"unassigned":{"count":1`)
	b.co.Assign(c, "Marta")
	assert.Contains(t, get(t, s, q).Data(t, 200), `"unassigned":{"count":0`)
	b.co.SetStatus(c, convo.ConversationResolved)
	assert.Contains(t, get(t, s, q).Data(t, 200), `"unanswered":{"count":0`)
	st, _ := s.Conversation(c)
	assert.Equal(t, convo.ConversationResolved, st.Status)
	assert.Equal(t, "Marta", st.AssignedTo)
}
