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
	s, b := newBasic(t)
	co := b.co
	h := func(x float64) time.Time { return t0.Add(-time.Duration(x * float64(time.Hour))) }
	conv := func(id, contact, agent string) string {
		return co.AddConversation(fake.Conversation{ID: uid(id), ContactID: contact, AssignedTo: agent})
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
			uid(id), contact, channel, account, h(in).UTC().Format("2006-01-02T15:04:05.000Z"), h(last).UTC().Format("2006-01-02T15:04:05.000Z"), wait, assigned, unread)
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

// unanswered reads the unanswered bucket of an anomaly report: its count
// and its conversation ids in order.
func unanswered(t *testing.T, r resp) (count int, ids []string) {
	t.Helper()
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
	require.NoError(t, json.Unmarshal([]byte(r.Data(t, 200)), &data))
	for _, it := range data.Buckets.Unanswered.Items {
		ids = append(ids, readable(it.ID)) // the name given to uid
	}
	return data.Buckets.Unanswered.Count, ids
}

func TestAnomaliesTiesByConversationID(t *testing.T) {
	s, b := newBasic(t)
	for _, id := range []string{"c-b", "c-c", "c-a"} {
		b.co.Inbound(b.co.AddConversation(fake.Conversation{ID: uid(id), ContactID: b.ana}), "x", t0.Add(-5*time.Hour))
	}
	_, got := unanswered(t, get(t, s, "/conversations/anomalies"))
	assert.Equal(t, []string{"c-a", "c-b", "c-c"}, got)
}

func TestAnomaliesItemsCappedWorstFirst(t *testing.T) {
	s, b := newBasic(t)
	for i := 0; i < 150; i++ {
		c := b.co.AddConversation(fake.Conversation{ID: uid(fmt.Sprintf("c%03d", i)), ContactID: b.ana})
		b.co.Inbound(c, "x", t0.Add(-4*time.Hour-time.Duration(i)*time.Minute)) // c149 waits longest
	}
	count, got := unanswered(t, get(t, s, "/conversations/anomalies?limit=100"))
	assert.Equal(t, 150, count)
	require.Len(t, got, 100)
	for i, id := range got {
		assert.Equal(t, fmt.Sprintf("c%03d", 149-i), id)
	}
	// The default limit is 20.
	_, got = unanswered(t, get(t, s, "/conversations/anomalies"))
	assert.Len(t, got, 20)
}

func TestAnomaliesFollowStatusAndAssignmentChanges(t *testing.T) {
	s, b := newBasic(t, fake.WithAnomalyCacheTTL(0))
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

// getAnomalies (docs/behaviour.md, Anomaly report): include is a comma list
// (a repeated include is INVALID_PARAM, see TestQueryStrings);
// spaces, empty names, duplicates and the two always-returned names are
// accepted; anything else is INVALID_BUCKET naming it, case-sensitive.
func TestAnomaliesInclude(t *testing.T) {
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

// getAnomalies (docs/behaviour.md, Anomaly report): the window's ends at the threshold edges 1
// and 24 (both inclusive), per channel; waiting_hours has one decimal in
// the JSON text.
func TestAnomaliesThresholdEdgesAndDecimals(t *testing.T) {
	s, b := newBasic(t, fake.WithAnomalyCacheTTL(0))
	mk := func(id, contact string, ago time.Duration) {
		b.co.Inbound(b.co.AddConversation(fake.Conversation{ID: uid(id), ContactID: contact}), "x", t0.Add(-ago))
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
			count, got := unanswered(t, get(t, s, "/conversations/anomalies?"+tc.q))
			assert.Equal(t, tc.want, got)
			assert.Equal(t, len(tc.want), count)
		})
	}
	raw := get(t, s, "/conversations/anomalies?threshold_hours=1").Data(t, 200)
	assert.Contains(t, raw, `"waiting_hours":24.0,`)
	assert.Contains(t, raw, `"waiting_hours":5.0,`)
	assert.Contains(t, raw, `"waiting_hours":1.0,`)
	assert.Contains(t, raw, `"ceiling_hours_by_channel":{"botapp":24,"chatapp":24,"sms":24,"webchat":24}`)
}

// getAnomalies (docs/behaviour.md, Anomaly report): unanswered means nothing went out after the contact spoke; a
// reply that failed did not go out (typically an automation outside the
// chatapp session window), so the conversation stays unanswered, and a
// failed automation reply does not make it automation_only.
func TestFailedReplyDidNotGoOut(t *testing.T) {
	s, b := newBasic(t, fake.WithAnomalyCacheTTL(0))
	c := b.co.AddConversation(fake.Conversation{ID: uid("failed"), ContactID: b.ana})
	b.co.Inbound(c, "hello?", t0.Add(-6*time.Hour))
	b.co.AddMessage(c, fake.Message{Sender: fake.SenderAutomation, Text: "auto", Status: "failed", FailureReason: "outside session window", At: t0.Add(-5 * time.Hour)})
	q := func() resp { return get(t, s, "/conversations/anomalies?include=automation_only") }
	raw := q().Data(t, 200)
	assert.Contains(t, raw, `"unanswered":{"count":1,"items":[{"conversation_id":"`+uid("failed")+`"`)
	assert.Contains(t, raw, `"automation_only":{"count":0,"items":[]}`)
	// A queued reply is on its way: it counts.
	b.co.AddMessage(c, fake.Message{Sender: fake.SenderAutomation, Text: "retry", Status: "queued", At: t0.Add(-4 * time.Hour)})
	raw = q().Data(t, 200)
	assert.Contains(t, raw, `"unanswered":{"count":0,"items":[]}`)
	assert.Contains(t, raw, `"automation_only":{"count":1,`)
}

// docs/behaviour.md, Anomaly report: system messages count neither as the contact speaking nor as a
// reply, whoever is named as their sender.
func TestSystemTypeIsNeutral(t *testing.T) {
	s, b := newBasic(t, fake.WithAnomalyCacheTTL(0))
	only := b.co.AddConversation(fake.Conversation{ID: uid("system"), ContactID: b.ana})
	b.co.AddMessage(only, fake.Message{Sender: fake.SenderContact, Type: "system", At: t0.Add(-5 * time.Hour)})
	waiting := b.co.AddConversation(fake.Conversation{ID: uid("wait"), ContactID: b.bob})
	b.co.Inbound(waiting, "hi", t0.Add(-6*time.Hour))
	b.co.AddMessage(waiting, fake.Message{Sender: fake.SenderAgent, Type: "system", At: t0.Add(-5 * time.Hour)})
	raw := get(t, s, "/conversations/anomalies").Data(t, 200)
	assert.Contains(t, raw, `"never_engaged":{"count":1}`)
	assert.Contains(t, raw, `"unanswered":{"count":1,"items":[{"conversation_id":"`+uid("wait")+`"`)
}

// getAnomalies caches its report on the server's clock, per company and per
// bucket (docs/behaviour.md, Anomaly report): a conversation that just
// entered is absent until the cache expires, while a bucket asked for the
// first time is computed now.
func TestAnomaliesCache(t *testing.T) {
	clock := fake.NewManualClock(t0)
	s, b := newBasic(t, fake.WithClock(clock), fake.WithAnomalyCacheTTL(5*time.Minute))
	count := func() int { n, _ := unanswered(t, get(t, s, "/conversations/anomalies")); return n }
	assert.Equal(t, 0, count()) // caches unanswered and never_engaged
	b.co.Inbound(b.co.AddConversation(fake.Conversation{ContactID: b.ana}), "x", t0.Add(-5*time.Hour))
	b.co.AddConversation(fake.Conversation{ContactID: b.bob})
	assert.Equal(t, 0, count())
	clock.Advance(time.Minute)
	raw := get(t, s, "/conversations/anomalies?include=unassigned").Data(t, 200)
	assert.Contains(t, raw, `"unanswered":{"count":0,"items":[]}`)
	assert.Contains(t, raw, `"never_engaged":{"count":0}`)
	assert.Contains(t, raw, `"unassigned":{"count":1,`)
	clock.Advance(3*time.Minute + 59*time.Second)
	assert.Equal(t, 0, count())
	clock.Advance(time.Second)
	raw = get(t, s, "/conversations/anomalies?include=unassigned").Data(t, 200)
	assert.Contains(t, raw, `"unanswered":{"count":1,`)
	assert.Contains(t, raw, `"never_engaged":{"count":1}`)
	// The cache is per company.
	r := get(t, s, "/conversations/anomalies", bearer(s.AddCompany("other-key").APIKey()))
	assert.Contains(t, r.Data(t, 200), `"unanswered":{"count":0,"items":[]}`)
}
