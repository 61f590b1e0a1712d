package fake_test

import (
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	convo "github.com/convoapi/convo-go"
	"github.com/convoapi/convo-go/fake"
)

// lookEverywhere calls every listing of a company, as a page showing it does.
func lookEverywhere(t *testing.T, co *fake.Company) {
	t.Helper()
	assert.NotEmpty(t, co.Channels())
	for _, cv := range co.Conversations() {
		msgs, ok := co.Messages(cv.ID)
		require.True(t, ok)
		for _, m := range msgs {
			if m.Media != nil && m.Media.MediaID != "" {
				_, ok := co.MediaData(m.Media.MediaID)
				assert.True(t, ok)
			}
		}
		co.LastMessage(cv.ID)
	}
	for th := range 25 {
		co.AnomalyBuckets(th)
	}
}

func unansweredCount(t *testing.T, s *fake.Server) int {
	t.Helper()
	r := get(t, s, "/conversations/anomalies")
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	var report struct {
		Buckets map[string]struct{ Count int } `json:"buckets"`
	}
	require.NoError(t, json.Unmarshal([]byte(r.Data(t, http.StatusOK)), &report))
	return report.Buckets[fake.BucketUnanswered].Count
}

// The listings read the store alone: the journal, the rate-limit budget, the
// anomaly report (its cache) and the clock are as they were.
func TestListingsChangeNothing(t *testing.T) {
	now := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	clock := fake.NewManualClock(now)
	s := newServer(t, fake.WithClock(clock), fake.WithRateLimit(0.001, 2))
	co := s.Company()
	acc := co.AddChannel(fake.ChannelAccount{Channel: convo.ChannelChatapp})
	waiting := func(phone string) {
		ct := co.AddContact(fake.Contact{ChannelAccountID: acc, PhoneNumber: phone})
		cv := co.AddConversation(fake.Conversation{ContactID: ct})
		co.Inbound(cv, "hello?", now.Add(-5*time.Hour))
		co.AddMessage(cv, fake.Message{Media: &fake.Media{MimeType: "image/png", Filename: "a.png", Content: "png"}, At: now.Add(-5 * time.Hour)})
	}
	waiting("5511900000001")

	lookEverywhere(t, co)
	assert.Empty(t, s.Requests(), "the journal")
	assert.Equal(t, now, clock.Now(), "the clock")

	waiting("5511900000002") // arrives after the look: a cache filled by it would hide this one
	assert.Equal(t, 2, unansweredCount(t, s), "the anomaly report is computed now, not answered from a look")
	r := get(t, s, "/channels")
	assert.Equal(t, http.StatusOK, r.Status, "the second token of the budget of 2 is still there")
	r = get(t, s, "/channels")
	assert.Equal(t, http.StatusTooManyRequests, r.Status, "the budget held exactly 2: the look took none")
}

// The listings agree with what the API answers.
func TestListingsAgreeWithTheAPI(t *testing.T) {
	now := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	s := newServer(t, fake.WithClock(fake.NewManualClock(now)), fake.WithSeed(fake.DemoSeed()))
	co := s.Company()
	var page struct {
		Items []struct {
			ID string `json:"id"`
		} `json:"items"`
	}
	require.NoError(t, json.Unmarshal([]byte(get(t, s, "/conversations?status=all&limit=100").Data(t, http.StatusOK)), &page))
	var ids []string
	for _, cv := range co.Conversations() {
		ids = append(ids, cv.ID)
	}
	var want []string
	for _, it := range page.Items {
		want = append(want, it.ID)
	}
	assert.Equal(t, want, ids, "the order of GET /conversations")

	var report struct {
		Buckets map[string]struct {
			Count int `json:"count"`
			Items []struct {
				ID string `json:"conversation_id"`
			} `json:"items"`
		} `json:"buckets"`
	}
	require.NoError(t, json.Unmarshal([]byte(get(t, s, "/conversations/anomalies?include=unassigned,automation_only&limit=100").Data(t, http.StatusOK)), &report))
	got := co.AnomalyBuckets(fake.DefaultThresholdHours)
	for name, b := range report.Buckets {
		assert.Len(t, got[name], b.Count, name)
		for i, it := range b.Items {
			assert.Equal(t, it.ID, got[name][i], "%s[%d]: worst first", name, i)
		}
	}
	_, ok := co.Messages("no-such-conversation")
	assert.False(t, ok)
	_, ok = co.MediaData("no-such-media")
	assert.False(t, ok)
}
