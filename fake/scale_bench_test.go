package fake_test

import (
	"bytes"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"net/http"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
	"time"

	convo "github.com/convoapi/convo-go"
	"github.com/convoapi/convo-go/fake"
	"github.com/convoapi/convo-go/internal/testkit"
)

// The fake at scale: memory per stored message, the cost of a request
// against a static handler, state files, and seeding growth. Each
// benchmark measures its pair in one run, so that the ratio holds on a busy
// machine:
//
//	go test ./fake -run '^$' -bench 'Scale' -benchtime 1x -count 3
//
// (BenchmarkScaleRequest wants time rather than one iteration:
// -bench ScaleRequest -benchtime 0.3s.)

// text60 is a 60-character text message, as in the memory target.
const text60 = "Hello, I would like to know more about your plans for Brazil"

// seedMessages stores convs conversations of perConv text messages (default
// UUID ids), each on its own contact, in s's default company. Each message
// has a text of its own (as one read from a file or a request has), and
// they arrive in time order, as a conversation's messages do.
func seedMessages(s *fake.Server, convs, perConv int) {
	co := s.Company()
	acc := co.AddChannel(fake.ChannelAccount{Channel: convo.ChannelChatapp})
	for c := range convs {
		ct := co.AddContact(fake.Contact{ChannelAccountID: acc, PhoneNumber: fmt.Sprintf("55%011d", c)})
		cv := co.AddConversation(fake.Conversation{ContactID: ct})
		for i := range perConv {
			co.AddMessage(cv, fake.Message{Sender: fake.SenderContact, Text: strings.Clone(text60),
				At: t0.Add(-time.Duration(c*perConv+perConv-i) * time.Second)})
		}
	}
}

// BenchmarkScaleHeapPerMessage reports the live heap the store holds per
// stored message (the heap after seeding and GC, less the heap of the empty
// server, divided by the messages), with 100,000 and 1,000,000 messages in
// conversations of 100, and with 100,000 conversations of 10.
func BenchmarkScaleHeapPerMessage(b *testing.B) {
	for _, tc := range []struct {
		name           string
		convs, perConv int
	}{
		{"msgs=100k/conv=100", 1_000, 100},
		{"msgs=1M/conv=100", 10_000, 100},
		{"msgs=1M/convs=100k", 100_000, 10},
	} {
		b.Run(tc.name, func(b *testing.B) {
			if len(text60) != 60 {
				b.Fatalf("text60 is %d characters", len(text60))
			}
			for b.Loop() {
				s := benchStore(b)
				before := liveHeap()
				seedMessages(s, tc.convs, tc.perConv)
				after := liveHeap()
				b.ReportMetric(float64(after-before)/float64(tc.convs*tc.perConv), "B/msg")
				runtime.KeepAlive(s)
			}
		})
	}
}

// BenchmarkScaleRequest serves GET /channels and a page of 100 messages
// through the fake's handler, with the request journal on at its default
// bounds and off, and through a static handler writing the same bytes, in
// memory (no socket: the figures are the handlers' own CPU).
func BenchmarkScaleRequest(b *testing.B) {
	s, page := requestBenchServer(b)
	off, _ := requestBenchServer(b, fake.WithJournalLimit(0))
	for _, target := range []struct{ name, path string }{
		{"channels", "/v1/channels"},
		{"messages-100", page},
	} {
		static := testkit.Static(testkit.Serve(b, s.Handler(), target.path, s.APIKey()))
		for _, h := range []struct {
			name string
			h    http.Handler
		}{{"fake", s.Handler()}, {"fake-nojournal", off.Handler()}, {"static", static}} {
			b.Run(target.name+"/"+h.name, func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					testkit.Serve(b, h.h, target.path, s.APIKey())
				}
			})
		}
	}
}

// requestBenchServer is the store of the request benchmarks, without rate
// limit, with opts: three channel accounts and a conversation of 150
// messages, whose page of 100 is at page.
func requestBenchServer(b *testing.B, opts ...fake.Option) (s *fake.Server, page string) {
	b.Helper()
	s, err := fake.NewHandler(append([]fake.Option{fake.WithClock(fake.NewManualClock(t0)), fake.WithRateLimit(0, 0)}, opts...)...)
	if err != nil {
		b.Fatal(err)
	}
	co := s.Company()
	co.AddChannel(fake.ChannelAccount{Channel: convo.ChannelChatapp, DisplayName: "Sales"})
	co.AddChannel(fake.ChannelAccount{Channel: convo.ChannelBotapp, DisplayName: "Bot"})
	acc := co.AddChannel(fake.ChannelAccount{Channel: convo.ChannelChatapp, DisplayName: "Support"})
	ct := co.AddContact(fake.Contact{ChannelAccountID: acc, PhoneNumber: "5511900000001"})
	cv := co.AddConversation(fake.Conversation{ID: "f0000000-0000-4000-8000-000000000001", ContactID: ct})
	for i := range 150 {
		co.AddMessage(cv, fake.Message{Sender: fake.SenderContact, Text: text60, At: t0.Add(-time.Duration(i+1) * time.Minute)})
	}
	return s, "/v1/conversations/" + cv + "/messages?limit=100"
}

// stateDocument is the export of a store of convs conversations of perConv
// messages, encoded as cmd/convofake writes its state file.
func stateDocument(b *testing.B, convs, perConv int) []byte {
	b.Helper()
	s := benchStore(b)
	seedMessages(s, convs, perConv)
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(s.ExportSeed()); err != nil {
		b.Fatal(err)
	}
	return buf.Bytes()
}

// BenchmarkScaleLoadSeed reads the state document of 100,000 messages
// (10,000 conversations of 10) with LoadSeed, with DecodeSeed alone (the
// decoding part of LoadSeed), with LoadSeed and a server built from it
// (what a --state start does), and with a plain json.Unmarshal into any
// (the floor), and reports the file's size.
func BenchmarkScaleLoadSeed(b *testing.B) {
	doc := stateDocument(b, 10_000, 10)
	b.Run("unmarshal-any", func(b *testing.B) {
		b.SetBytes(int64(len(doc)))
		for b.Loop() {
			var v any
			if err := json.Unmarshal(doc, &v); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("LoadSeed", func(b *testing.B) {
		b.SetBytes(int64(len(doc)))
		for b.Loop() {
			if _, err := fake.LoadSeed(bytes.NewReader(doc)); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("DecodeSeed", func(b *testing.B) { // LoadSeed less its check in a scratch server
		b.SetBytes(int64(len(doc)))
		for b.Loop() {
			if _, err := fake.DecodeSeed(bytes.NewReader(doc)); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("LoadSeed+server", func(b *testing.B) {
		b.SetBytes(int64(len(doc)))
		for b.Loop() {
			seed, err := fake.LoadSeed(bytes.NewReader(doc))
			if err != nil {
				b.Fatal(err)
			}
			if _, err := fake.NewHandler(fake.WithSeed(seed)); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("file-size", func(b *testing.B) {
		for b.Loop() {
		}
		b.ReportMetric(float64(len(doc))/1e6, "MB/100k-msgs")
	})
}

// BenchmarkScaleAnomalies computes the anomaly report (all four buckets,
// cache off) over 100,000 and 1,000,000 conversations, in memory; the growth
// target compares the two times (the report reads every open conversation,
// so it grows with the store, but no faster).
func BenchmarkScaleAnomalies(b *testing.B) {
	for _, n := range []int{100_000, 1_000_000} {
		b.Run(fmt.Sprintf("convs=%d", n), func(b *testing.B) {
			s, err := fake.NewHandler(fake.WithClock(fake.NewManualClock(t0)), fake.WithRateLimit(0, 0),
				fake.WithAnomalyCacheTTL(0), fake.WithJournalLimit(0))
			if err != nil {
				b.Fatal(err)
			}
			seedAnomalies(s.Company(), n)
			runtime.GC()
			for b.Loop() {
				testkit.Serve(b, s.Handler(), "/v1"+anomalyReport, s.APIKey())
			}
		})
	}
}

// BenchmarkScaleSeeding stores 100,000 and 1,000,000 conversations of one
// message each (a contact each) through the Go API, one object at a time
// (Add*), and as one CompanySeed (Company.Load, made outside the timer);
// the growth target compares the times at the two sizes. Its baseline
// (maps-only) does in the same run the least any store of them does: three
// objects the size of the fake's records per conversation, each put in a
// map by a random 16-byte id and read back, and the contact in a map by
// phone. At a million, those maps outgrow the processor's caches, and its
// growth is the floor of the fake's.
//
// Before each iteration the heap is collected and its free pages are given
// back to the operating system, outside the timer, so that each size pays
// for the pages it touches: otherwise a size's later iterations reuse the
// pages of the first and the smaller size, whose pages the runtime keeps,
// gains more from it than the larger one, whose pages it gives back.
func BenchmarkScaleSeeding(b *testing.B) {
	for _, n := range []int{100_000, 1_000_000} {
		b.Run(fmt.Sprintf("add/convs=%d", n), func(b *testing.B) {
			for coldLoop(b) {
				s := benchStore(b)
				seedMessages(s, n, 1)
				runtime.KeepAlive(s)
			}
		})
		b.Run(fmt.Sprintf("load/convs=%d", n), func(b *testing.B) {
			cs := seedOfMessages(n)
			for coldLoop(b) {
				s := benchStore(b)
				if err := s.Company().Load(cs); err != nil {
					b.Fatal(err)
				}
				runtime.KeepAlive(s)
			}
		})
		b.Run(fmt.Sprintf("maps-only/convs=%d", n), func(b *testing.B) {
			for coldLoop(b) {
				runtime.KeepAlive(mapsOnly(n))
			}
		})
	}
}

// coldLoop is b.Loop after a collection that returns the free heap to the
// operating system, outside the timer.
func coldLoop(b *testing.B) bool {
	b.StopTimer()
	debug.FreeOSMemory()
	b.StartTimer()
	return b.Loop()
}

// seedOfMessages is seedMessages as a CompanySeed, with the ids and
// references a state file has.
func seedOfMessages(convs int) fake.CompanySeed {
	const acc = "a0000000-0000-4000-8000-000000000000"
	cs := fake.CompanySeed{
		Channels:      []fake.ChannelAccount{{ID: acc, Channel: convo.ChannelChatapp}},
		Contacts:      make([]fake.Contact, convs),
		Conversations: make([]fake.Conversation, convs),
	}
	for c := range convs {
		ct := fmt.Sprintf("c0000000-0000-4000-8000-%012d", c)
		cs.Contacts[c] = fake.Contact{ID: ct, ChannelAccountID: acc, PhoneNumber: fmt.Sprintf("55%011d", c)}
		cs.Conversations[c] = fake.Conversation{ID: fmt.Sprintf("d0000000-0000-4000-8000-%012d", c), ContactID: ct,
			Messages: []fake.Message{{MessageID: fmt.Sprintf("e0000000-0000-4000-8000-%012d", c), Sender: fake.SenderContact,
				Text: text60, At: t0.Add(-time.Duration(c+1) * time.Second)}}}
	}
	return cs
}

// mapsOnly is BenchmarkScaleSeeding's baseline: n contacts, conversations
// and messages as plain objects of about the fake's sizes in maps.
func mapsOnly(n int) any {
	type (
		contact      struct{ _ [208]byte }
		conversation struct{ _ [288]byte }
		message      struct{ _ [64]byte }
	)
	contacts, convs, msgs := map[[16]byte]*contact{}, map[[16]byte]*conversation{}, map[[16]byte]*message{}
	byPhone := map[string]*contact{}
	for i := range n {
		var id [16]byte
		_, _ = rand.Read(id[:])
		ct := &contact{}
		contacts[id] = ct
		byPhone[fmt.Sprintf("55%011d", i)] = ct
		id[0]++
		convs[id] = &conversation{}
		_ = contacts[id]
		id[1]++
		msgs[id] = &message{}
		_ = convs[id]
	}
	return []any{contacts, convs, msgs, byPhone}
}
