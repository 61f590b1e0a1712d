package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	convo "github.com/convoapi/convo-go"
	"github.com/convoapi/convo-go/examples/internal/demo"
	"github.com/convoapi/convo-go/fake"
)

// rtt is the round trip the benchmark models: the fake waits this long
// before answering every request.
const rtt = 50 * time.Millisecond

// BenchmarkExportOverNetwork exports 200 conversations of 300 messages
// (pages of 100) from a fake that answers every request after 50 ms, and
// reports the wall time against the ideal calls × RTT / concurrency
// (x-ideal), the calls made and the 429 answers, with and without
// --read-ahead.
//
//	go test ./examples/export-history -run '^$' -bench ExportOverNetwork -benchtime 1x
func BenchmarkExportOverNetwork(b *testing.B) {
	const convs, perConv = 200, 300
	// The clock is pinned, so the rate limiter's bucket would never refill:
	// no limit here (contact-sync's benchmark measures one).
	s := fake.NewServer(fake.WithClock(fake.NewManualClock(t0)), fake.WithJournalLimit(1<<20), fake.WithRateLimit(0, 0))
	b.Cleanup(s.Close)
	co := s.Company()
	acc := co.AddChannel(fake.ChannelAccount{Channel: convo.ChannelChatapp, ProviderIdentifier: "5511900000001"})
	for c := range convs {
		ct := co.AddContact(fake.Contact{ChannelAccountID: acc, PhoneNumber: fmt.Sprintf("55119%08d", c)})
		cv := co.AddConversation(fake.Conversation{ContactID: ct})
		for i := range perConv {
			co.AddMessage(cv, fake.Message{Sender: fake.SenderContact, Text: "Hello, I would like to know more about your plans.",
				At: t0.Add(-time.Duration(c*perConv+i) * time.Minute)})
		}
	}
	s.AddFault(fake.Fault{Latency: rtt})
	demo.PointAt(b, s)

	cases := []struct {
		concurrency int
		readAhead   bool
	}{{1, false}, {1, true}, {8, true}, {16, false}, {16, true}}
	for _, tc := range cases {
		concurrency := tc.concurrency
		b.Run(fmt.Sprintf("concurrency%d-readahead=%v", concurrency, tc.readAhead), func(b *testing.B) {
			var wall, ideal time.Duration
			var calls, limited int
			for b.Loop() {
				b.StopTimer()
				s.ClearRequests()
				dir := b.TempDir()
				b.StartTimer()
				start := time.Now()
				code := run(context.Background(), []string{"--since", "2026-01-01", "--dir", dir, "--page-size", "100",
					"--concurrency", fmt.Sprint(concurrency), fmt.Sprint("--read-ahead=", tc.readAhead)}, io.Discard, io.Discard)
				wall += time.Since(start)
				b.StopTimer()
				if code != 0 {
					b.Fatalf("exit code %d", code)
				}
				if n := countLines(b, filepath.Join(dir, "history.jsonl")); n != convs*perConv {
					b.Fatalf("%d lines, want %d", n, convs*perConv)
				}
				for _, r := range s.Requests() {
					calls++
					if r.Status == http.StatusTooManyRequests {
						limited++
					}
				}
				ideal += time.Duration(len(s.Requests())) * rtt / time.Duration(concurrency)
				b.StartTimer()
			}
			b.ReportMetric(wall.Seconds()/float64(b.N), "wall-s")
			b.ReportMetric(ideal.Seconds()/float64(b.N), "ideal-s")
			b.ReportMetric(wall.Seconds()/ideal.Seconds(), "x-ideal")
			b.ReportMetric(float64(calls)/float64(b.N), "calls")
			b.ReportMetric(float64(limited)/float64(b.N), "429s")
		})
	}
}

func countLines(b *testing.B, path string) int {
	b.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	return bytes.Count(data, []byte("\n"))
}
