package fake_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"runtime"
	"testing"
	"time"

	convo "github.com/convoapi/convo-go"
	"github.com/convoapi/convo-go/fake"
	"github.com/convoapi/convo-go/internal/testkit"
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
	_, after18 := readPages(b, s.Handler(), s.APIKey(), "/v1/conversations/"+target+"/messages?limit=50", 18)
	deep := s.URL() + "/conversations/" + target + "/messages?limit=50&cursor=" + url.QueryEscape(after18)
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

// BenchmarkAnomaliesUncached computes the anomaly report (all four buckets)
// over 100,000 open conversations with the cache disabled, over loopback
// HTTP.
func BenchmarkAnomaliesUncached(b *testing.B) {
	clock := fake.NewManualClock(t0)
	s := fake.NewServer(fake.WithClock(clock), fake.WithRateLimit(0, 0), fake.WithAnomalyCacheTTL(0))
	defer s.Close()
	seedAnomalies(s.Company(), 100_000)
	u := s.URL() + anomalyReport
	b.ReportAllocs()
	for b.Loop() {
		benchGet(b, u, s.APIKey())
	}
}

// anomalyReport is the report the anomaly benchmarks ask for.
const anomalyReport = "/conversations/anomalies?include=unassigned,automation_only&limit=100"

// seedAnomalies stores n conversations on 1,000 contacts, half of them
// assigned: one in ten never engaged, the others with an inbound message 0
// to 30 hours ago, answered by nobody, automation or a person.
func seedAnomalies(co *fake.Company, n int) {
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
}

// The fake's edges that grew with the store, in memory (no socket, so the
// figures are the fake's own), each against a baseline of the same run:
//
//	go test ./fake -run '^$' -bench 'Edge' -benchtime 2s

// benchStore is an in-memory fake (no listener) on a manual clock, without
// rate limit or journal.
func benchStore(b *testing.B) *fake.Server {
	b.Helper()
	s, err := fake.NewHandler(fake.WithClock(fake.NewManualClock(t0)), fake.WithRateLimit(0, 0), fake.WithJournalLimit(0))
	if err != nil {
		b.Fatal(err)
	}
	return s
}

// conversationStore is a fake with n conversations of one message each.
func conversationStore(b *testing.B, n int) *fake.Server {
	b.Helper()
	s := benchStore(b)
	co := s.Company()
	acc := co.AddChannel(fake.ChannelAccount{Channel: convo.ChannelChatapp})
	for i := range n {
		ct := co.AddContact(fake.Contact{ChannelAccountID: acc, PhoneNumber: fmt.Sprintf("55%011d", i)})
		cv := co.AddConversation(fake.Conversation{ContactID: ct})
		co.AddMessage(cv, fake.Message{Sender: fake.SenderContact, Text: "hi", At: t0.Add(-time.Duration(i) * time.Second)})
	}
	return s
}

func nextCursorOf(b *testing.B, body []byte) string {
	var env struct {
		Data struct {
			NextCursor *string `json:"next_cursor"`
		} `json:"data"`
	}
	if err := json.Unmarshal(body, &env); err != nil {
		b.Fatal(err)
	}
	if env.Data.NextCursor == nil {
		return ""
	}
	return *env.Data.NextCursor
}

// readPages reads first, then the pages after it through h, max pages in
// all (0: to the end); it returns the pages read and the next cursor.
func readPages(b *testing.B, h http.Handler, key, first string, max int) (pages int, cursor string) {
	for max == 0 || pages < max {
		target := first
		if cursor != "" {
			target += "&cursor=" + url.QueryEscape(cursor)
		}
		cursor = nextCursorOf(b, testkit.Serve(b, h, target, key))
		if pages++; cursor == "" {
			break
		}
	}
	return pages, cursor
}

// BenchmarkEdgeConversationPage reads a page of 100 conversations from the
// middle of the list, with 1,000 and with 100,000 conversations stored: the
// two should cost about the same (a walk from the cursor, not a sort of the
// store).
func BenchmarkEdgeConversationPage(b *testing.B) {
	for _, n := range []int{1_000, 100_000} {
		b.Run(fmt.Sprintf("store=%d", n), func(b *testing.B) {
			s := conversationStore(b, n)
			first := testkit.Serve(b, s.Handler(), "/v1/conversations?limit=100", s.APIKey())
			target := "/v1/conversations?limit=100&cursor=" + url.QueryEscape(nextCursorOf(b, first))
			b.ReportAllocs()
			for b.Loop() {
				testkit.Serve(b, s.Handler(), target, s.APIKey())
			}
		})
	}
}

// BenchmarkEdgeAllConversationPages100k pages through 100,000 conversations
// (1,000 pages of 100) and reports the seconds it takes.
func BenchmarkEdgeAllConversationPages100k(b *testing.B) {
	s := conversationStore(b, 100_000)
	var total time.Duration
	for b.Loop() {
		start := time.Now()
		pages, _ := readPages(b, s.Handler(), s.APIKey(), "/v1/conversations?limit=100", 0)
		total += time.Since(start)
		if pages != 1000 {
			b.Fatalf("%d pages", pages)
		}
	}
	b.ReportMetric(total.Seconds()/float64(b.N), "s/100k")
}

// BenchmarkEdgeAnomaliesCached serves the cached anomaly report (all four
// buckets, 100 items each) over 100,000 conversations, against a handler
// writing the same bytes (static), one at a time and from all CPUs at once
// (a cached hit takes only the read lock).
func BenchmarkEdgeAnomaliesCached(b *testing.B) {
	s := benchStore(b)
	co := s.Company()
	acc := co.AddChannel(fake.ChannelAccount{Channel: convo.ChannelChatapp})
	for i := range 100_000 {
		ct := co.AddContact(fake.Contact{ChannelAccountID: acc, PhoneNumber: fmt.Sprintf("55%011d", i)})
		cv := co.AddConversation(fake.Conversation{ContactID: ct})
		co.AddMessage(cv, fake.Message{Sender: fake.SenderContact, Text: "hi", At: t0.Add(-time.Duration(5*3600+i%(15*3600)) * time.Second)})
	}
	target := "/v1/conversations/anomalies?include=unassigned,automation_only&limit=100"
	body := testkit.Serve(b, s.Handler(), target, s.APIKey()) // fills the cache
	static := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		_, _ = w.Write(body)
	})
	for _, h := range []struct {
		name string
		h    http.Handler
	}{{"fake", s.Handler()}, {"static", static}} {
		b.Run(h.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				testkit.Serve(b, h.h, target, s.APIKey())
			}
		})
		b.Run(h.name+"-parallel", func(b *testing.B) {
			b.ReportAllocs()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					testkit.Serve(b, h.h, target, s.APIKey())
				}
			})
		})
	}
}

// BenchmarkEdgeMemoryAfterReading stores 200,000 messages (1,000
// conversations of 200), reads every page of every conversation, and
// reports the live heap after against before (ideally 1.0: reading keeps
// nothing).
func BenchmarkEdgeMemoryAfterReading(b *testing.B) {
	for b.Loop() {
		s := benchStore(b)
		co := s.Company()
		acc := co.AddChannel(fake.ChannelAccount{Channel: convo.ChannelChatapp})
		var convs []string
		for c := range 1000 {
			ct := co.AddContact(fake.Contact{ChannelAccountID: acc, PhoneNumber: fmt.Sprintf("55%011d", c)})
			cv := co.AddConversation(fake.Conversation{ContactID: ct})
			for i := range 200 {
				co.AddMessage(cv, fake.Message{Sender: fake.SenderContact, Text: "Hello, I would like to know more about your plans.",
					At: t0.Add(-time.Duration(c*200+i) * time.Second)})
			}
			convs = append(convs, cv)
		}
		before := liveHeap()
		for _, cv := range convs {
			readPages(b, s.Handler(), s.APIKey(), "/v1/conversations/"+cv+"/messages?limit=100", 0)
		}
		after := liveHeap()
		b.ReportMetric(float64(after)/float64(before), "heap-after/before")
		runtime.KeepAlive(s)
	}
}

func liveHeap() uint64 {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}
