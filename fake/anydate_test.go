package fake_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	convo "github.com/convoapi/convo-go"
	"github.com/convoapi/convo-go/fake"
)

// dateAnswers is what the date-sensitive paths answer, in terms that do not
// depend on the date itself, so that runs at different dates compare equal.
type dateAnswers struct {
	WindowDays      int
	WindowSinceAgo  time.Duration // the window's since, before the fake's now
	InWindow        []string      // message ids read without since
	Unanswered      []string      // conversation ids, worst first
	WaitingHours    []float64
	Ceilings        map[convo.Channel]int
	CachedCount     int // unanswered count just after a new conversation entered
	FreshCount      int // the same once the cache expired
	PagedIDs        []string
	PagedDuplicates int
}

// TestDateSensitivePathsOnAnyDate runs the message window, the anomaly
// ceilings and cache, and cursor stability with the fake's clock at
// 2001-01-01, on a leap day and at 2099-12-31 (never today's date, so that
// a run does not depend on the day it runs): the answers are the same.
func TestDateSensitivePathsOnAnyDate(t *testing.T) {
	dates := map[string]time.Time{
		"2001-01-01": time.Date(2001, 1, 1, 0, 0, 0, 0, time.UTC),
		"2028-02-29": time.Date(2028, 2, 29, 12, 34, 56, 789_000_000, time.UTC),
		"2099-12-31": time.Date(2099, 12, 31, 23, 0, 0, 0, time.UTC),
	}
	want := dateAnswers{
		WindowDays:     30,
		WindowSinceAgo: 30 * 24 * time.Hour,
		InWindow:       []string{"w-new", "w-29d"},
		Unanswered:     []string{"c-23h", "c-5h"},
		WaitingHours:   []float64{23, 5},
		Ceilings:       map[convo.Channel]int{"chatapp": 24, "botapp": 24, "sms": 24, "webchat": 24},
		CachedCount:    2,
		FreshCount:     3,
		PagedIDs:       []string{"p5", "p4", "p3", "p2", "p1"},
	}
	for name, at := range dates {
		t.Run(name, func(t *testing.T) {
			assert.Equal(t, want, answersAt(t, at))
		})
	}
}

func answersAt(t *testing.T, now time.Time) dateAnswers {
	clock := fake.NewManualClock(now)
	s := newServer(t, fake.WithClock(clock))
	co := s.Company()
	acc := co.AddChannel(fake.ChannelAccount{Channel: convo.ChannelChatapp, ProviderIdentifier: "5511900000001"})
	phone := 5511900000100
	conv := func(id string) string {
		phone++
		ct := co.AddContact(fake.Contact{ChannelAccountID: acc, PhoneNumber: fmt.Sprint(phone)})
		return co.AddConversation(fake.Conversation{ID: uid(id), ContactID: ct})
	}
	msg := func(conv, id string, ago time.Duration) {
		co.AddMessage(conv, fake.Message{MessageID: id, Sender: fake.SenderAgent, Text: id, At: now.Add(-ago)})
	}
	c := s.Client()
	ctx := context.Background()
	var got dateAnswers

	// The message window: 30 days back from the service's now.
	w := conv("c-window")
	msg(w, "w-31d", 31*24*time.Hour)
	msg(w, "w-29d", 29*24*time.Hour)
	msg(w, "w-new", time.Minute)
	page, err := c.Messages.List(ctx, w, nil)
	require.NoError(t, err)
	got.WindowDays = page.Window.RecentWindowDays
	got.WindowSinceAgo = now.Sub(page.Window.Since)
	for _, m := range page.Items {
		got.InWindow = append(got.InWindow, m.MessageID)
	}

	// Anomaly ceilings: between the 4 h threshold and the 24 h ceiling.
	for _, h := range []int{3, 5, 23, 25} {
		co.Inbound(conv(fmt.Sprintf("c-%dh", h)), "hello?", now.Add(-time.Duration(h)*time.Hour))
	}
	report, err := c.Anomalies.Get(ctx, nil)
	require.NoError(t, err)
	for _, it := range report.Buckets.Unanswered.Items {
		got.Unanswered = append(got.Unanswered, readable(it.ConversationID))
		got.WaitingHours = append(got.WaitingHours, it.WaitingHours)
	}
	got.Ceilings = report.Window.CeilingHoursByChannel

	// The cache: a conversation that just entered is absent until it expires.
	co.Inbound(conv("c-late"), "me too", now.Add(-6*time.Hour))
	cached, err := c.Anomalies.Get(ctx, nil)
	require.NoError(t, err)
	got.CachedCount = cached.Buckets.Unanswered.Count
	clock.Advance(fake.DefaultAnomalyCacheTTL)
	fresh, err := c.Anomalies.Get(ctx, nil)
	require.NoError(t, err)
	got.FreshCount = fresh.Buckets.Unanswered.Count

	// Cursor stability: a message arriving between pages neither repeats
	// nor hides one that existed when the first page was read.
	p := conv("c-paged")
	for i := 1; i <= 5; i++ {
		msg(p, fmt.Sprintf("p%d", i), time.Duration(10-i)*time.Minute)
	}
	seen := map[string]int{}
	params := &convo.ListMessagesParams{Limit: 2}
	for first := true; ; first = false {
		pg, err := c.Messages.List(ctx, p, params)
		require.NoError(t, err)
		for _, m := range pg.Items {
			if seen[m.MessageID]++; seen[m.MessageID] > 1 {
				got.PagedDuplicates++
			} else {
				got.PagedIDs = append(got.PagedIDs, m.MessageID)
			}
		}
		if first {
			msg(p, "p-arrived", 0)
		}
		if pg.NextCursor == "" {
			break
		}
		params.Cursor = pg.NextCursor
	}
	return got
}
