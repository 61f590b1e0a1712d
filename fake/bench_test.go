package fake_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"
	"time"

	convo "github.com/convoapi/convo-go"
	"github.com/convoapi/convo-go/fake"
)

// benchClient keeps connections alive, as SDK clients do.
var benchClient = &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}

func benchGet(b *testing.B, rawURL, key string) {
	req, _ := http.NewRequest("GET", rawURL, nil)
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	res, err := benchClient.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, res.Body)
	res.Body.Close()
	if res.StatusCode != 200 {
		b.Fatalf("status %d", res.StatusCode)
	}
}

// BenchmarkMessagesPage reads a 50-message page of one conversation among
// 1,000,000 stored messages (1,000 conversations of 1,000 messages), over
// loopback HTTP, and compares it in the same run with a net/http handler
// that writes the same bytes as a static JSON answer.
//
//	go test ./fake -run '^$' -bench 'MessagesPage|Anomalies' -benchtime 2s
func BenchmarkMessagesPage(b *testing.B) {
	const convs, perConv = 1000, 1000
	clock := fake.NewManualClock(t0)
	s := fake.NewServer(fake.WithClock(clock), fake.WithRateLimit(0, 0))
	defer s.Close()
	co := s.Company()
	acc := co.AddChannel(fake.ChannelAccount{Channel: convo.ChannelChatapp})
	var target string
	for c := 0; c < convs; c++ {
		ct := co.AddContact(fake.Contact{ChannelAccountID: acc, PhoneNumber: fmt.Sprintf("55119%08d", c)})
		cv := co.AddConversation(fake.Conversation{ContactID: ct})
		for i := 0; i < perConv; i++ {
			m := fake.Message{Sender: fake.SenderContact, Text: "Hello, I would like to know more about your plans.", At: t0.Add(-time.Duration(perConv-i) * time.Minute)}
			if i%2 == 1 {
				m.Sender, m.Text = fake.SenderAgent, "Sure! Here are the details of our plans."
			}
			co.AddMessage(cv, m)
		}
		if c == convs/2 {
			target = cv
		}
	}
	first := s.URL() + "/conversations/" + target + "/messages?limit=50"
	body := fetch(b, first, s.APIKey())
	deep := s.URL() + "/conversations/" + target + "/messages?limit=50&cursor=" + url.QueryEscape(cursorAfter(b, s, target, 18))
	static := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		_, _ = w.Write(body)
	}))
	defer static.Close()

	b.Run("fake", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			benchGet(b, first, s.APIKey())
		}
	})
	b.Run("fake-deep-cursor", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			benchGet(b, deep, s.APIKey())
		}
	})
	b.Run("static", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			benchGet(b, static.URL, "")
		}
	})
	b.Logf("page body %d bytes", len(body))
}

func fetch(b *testing.B, rawURL, key string) []byte {
	req, _ := http.NewRequest("GET", rawURL, nil)
	req.Header.Set("Authorization", "Bearer "+key)
	res, err := benchClient.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	return body
}

// cursorAfter pages n times and returns the cursor of the next page.
func cursorAfter(b *testing.B, s *fake.Server, conv string, n int) string {
	cur := ""
	for i := 0; i < n; i++ {
		u := s.URL() + "/conversations/" + conv + "/messages?limit=50"
		if cur != "" {
			u += "&cursor=" + url.QueryEscape(cur)
		}
		var page struct {
			Data struct {
				NextCursor string `json:"next_cursor"`
			} `json:"data"`
		}
		if err := json.Unmarshal(fetch(b, u, s.APIKey()), &page); err != nil {
			b.Fatal(err)
		}
		cur = page.Data.NextCursor
	}
	return cur
}

// BenchmarkAnomaliesUncached computes the anomaly report (all four buckets)
// over 100,000 open conversations with the cache disabled, over loopback
// HTTP.
func BenchmarkAnomaliesUncached(b *testing.B) {
	const n = 100_000
	clock := fake.NewManualClock(t0)
	s := fake.NewServer(fake.WithClock(clock), fake.WithRateLimit(0, 0), fake.WithAnomalyCacheTTL(0))
	defer s.Close()
	co := s.Company()
	chat := co.AddChannel(fake.ChannelAccount{Channel: convo.ChannelChatapp})
	bot := co.AddChannel(fake.ChannelAccount{Channel: convo.ChannelBotapp})
	var contacts []string
	for i := 0; i < 1000; i++ {
		acc := chat
		if i%3 == 0 {
			acc = bot
		}
		contacts = append(contacts, co.AddContact(fake.Contact{ChannelAccountID: acc, PhoneNumber: fmt.Sprintf("55119%08d", i)}))
	}
	for i := 0; i < n; i++ {
		agent := ""
		if i%2 == 0 {
			agent = "Marta"
		}
		cv := co.AddConversation(fake.Conversation{ContactID: contacts[i%len(contacts)], AssignedTo: agent})
		if i%10 == 0 {
			continue // never engaged
		}
		in := t0.Add(-time.Duration(i%(30*60)) * time.Minute) // 0 to 30 h ago
		co.AddMessage(cv, fake.Message{Sender: fake.SenderContact, Text: "hi", At: in})
		switch i % 4 {
		case 1:
			co.AddMessage(cv, fake.Message{Sender: fake.SenderAutomation, Text: "auto", At: in.Add(time.Second)})
		case 2:
			co.AddMessage(cv, fake.Message{Sender: fake.SenderAgent, Text: "human", At: in.Add(time.Second)})
		}
	}
	u := s.URL() + "/conversations/anomalies?include=unassigned,automation_only&limit=100"
	b.ReportAllocs()
	for b.Loop() {
		benchGet(b, u, s.APIKey())
	}
}
