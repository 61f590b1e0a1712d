package fake_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"runtime"
	"testing"
	"time"

	convo "github.com/convoapi/convo-go"
	"github.com/convoapi/convo-go/fake"
)

// The fake's edges that grew with the store, in memory (no socket, so the
// figures are the fake's own), each against a baseline of the same run:
//
//	go test ./fake -run '^$' -bench 'Edge' -benchtime 2s

// serveInMemory answers one GET through the handler and returns the body.
func serveInMemory(b *testing.B, h http.Handler, key, target string) []byte {
	req := httptest.NewRequest(http.MethodGet, target, nil)
	req.Header.Set("Authorization", "Bearer "+key)
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Code != http.StatusOK {
		b.Fatalf("%s: %d %s", target, rec.Code, rec.Body.String())
	}
	return rec.Body.Bytes()
}

// conversationStore is a fake with n conversations of one message each.
func conversationStore(b *testing.B, n int) *fake.Server {
	b.Helper()
	s, err := fake.NewHandler(fake.WithClock(fake.NewManualClock(t0)), fake.WithRateLimit(0, 0), fake.WithJournalLimit(0))
	if err != nil {
		b.Fatal(err)
	}
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

// BenchmarkEdgeConversationPage reads a page of 100 conversations from the
// middle of the list, with 1,000 and with 100,000 conversations stored: the
// two should cost about the same (a walk from the cursor, not a sort of the
// store).
func BenchmarkEdgeConversationPage(b *testing.B) {
	for _, n := range []int{1_000, 100_000} {
		b.Run(fmt.Sprintf("store=%d", n), func(b *testing.B) {
			s := conversationStore(b, n)
			first := serveInMemory(b, s.Handler(), s.APIKey(), "/v1/conversations?limit=100")
			target := "/v1/conversations?limit=100&cursor=" + url.QueryEscape(nextCursorOf(b, first))
			b.ReportAllocs()
			for b.Loop() {
				serveInMemory(b, s.Handler(), s.APIKey(), target)
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
		pages, cursor := 0, ""
		for {
			target := "/v1/conversations?limit=100"
			if cursor != "" {
				target += "&cursor=" + url.QueryEscape(cursor)
			}
			cursor = nextCursorOf(b, serveInMemory(b, s.Handler(), s.APIKey(), target))
			pages++
			if cursor == "" {
				break
			}
		}
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
	s, err := fake.NewHandler(fake.WithClock(fake.NewManualClock(t0)), fake.WithRateLimit(0, 0), fake.WithJournalLimit(0))
	if err != nil {
		b.Fatal(err)
	}
	co := s.Company()
	acc := co.AddChannel(fake.ChannelAccount{Channel: convo.ChannelChatapp})
	for i := range 100_000 {
		ct := co.AddContact(fake.Contact{ChannelAccountID: acc, PhoneNumber: fmt.Sprintf("55%011d", i)})
		cv := co.AddConversation(fake.Conversation{ContactID: ct})
		co.AddMessage(cv, fake.Message{Sender: fake.SenderContact, Text: "hi", At: t0.Add(-time.Duration(5*3600+i%(15*3600)) * time.Second)})
	}
	target := "/v1/conversations/anomalies?include=unassigned,automation_only&limit=100"
	body := serveInMemory(b, s.Handler(), s.APIKey(), target) // fills the cache
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
				serveInMemory(b, h.h, s.APIKey(), target)
			}
		})
		b.Run(h.name+"-parallel", func(b *testing.B) {
			b.ReportAllocs()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					serveInMemory(b, h.h, s.APIKey(), target)
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
		s, err := fake.NewHandler(fake.WithClock(fake.NewManualClock(t0)), fake.WithRateLimit(0, 0), fake.WithJournalLimit(0))
		if err != nil {
			b.Fatal(err)
		}
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
			cursor := ""
			for {
				target := "/v1/conversations/" + cv + "/messages?limit=100"
				if cursor != "" {
					target += "&cursor=" + url.QueryEscape(cursor)
				}
				if cursor = nextCursorOf(b, serveInMemory(b, s.Handler(), s.APIKey(), target)); cursor == "" {
					break
				}
			}
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
