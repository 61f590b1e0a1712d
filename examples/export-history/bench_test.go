package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	convo "github.com/convoapi/convo-go"
	"github.com/convoapi/convo-go/examples/internal/demotest"
	"github.com/convoapi/convo-go/fake"
)

// rtt is the round trip the benchmark models: the fake waits this long
// before answering every request.
const rtt = 50 * time.Millisecond

// BenchmarkExportOverNetwork exports 200 conversations of 300 messages
// (pages of 100) from a fake that answers every request after 50 ms, and
// reports the wall time against the ideal calls × RTT / concurrency
// (x-ideal), the calls made and the 429 answers.
//
//	go test ./examples/export-history -run '^$' -bench ExportOverNetwork -benchtime 1x
func BenchmarkExportOverNetwork(b *testing.B) {
	const convs, perConv = 200, 300
	// The clock is pinned, so the rate limiter's bucket would never refill:
	// no limit here (contact-sync's benchmark measures one).
	s := demotest.Fake(b, t0, fake.WithJournalLimit(1<<20), fake.WithRateLimit(0, 0))
	co := s.Company()
	acc := co.AddChannel(fake.ChannelAccount{Channel: convo.ChannelChatapp, ProviderIdentifier: "5511900000001"})
	for c := range convs {
		cv := co.AddConversation(fake.Conversation{ContactID: co.AddContact(fake.Contact{ChannelAccountID: acc, PhoneNumber: fmt.Sprintf("55119%08d", c)})})
		for i := range perConv {
			co.AddMessage(cv, fake.Message{Sender: fake.SenderContact, Text: "Hello, I would like to know more about your plans.",
				At: t0.Add(-time.Duration(c*perConv+i) * time.Minute)})
		}
	}
	s.AddFault(fake.Fault{Latency: rtt})

	for _, concurrency := range []int{1, 8, 16} {
		b.Run(fmt.Sprintf("concurrency%d", concurrency), func(b *testing.B) {
			var wall, ideal time.Duration
			var calls, limited int
			for b.Loop() {
				b.StopTimer()
				s.ClearRequests()
				dir := b.TempDir()
				b.StartTimer()
				start := time.Now()
				code := run(context.Background(), []string{"--since", "2026-01-01", "--dir", dir, "--concurrency", fmt.Sprint(concurrency)}, io.Discard, io.Discard)
				wall += time.Since(start)
				b.StopTimer()
				data, err := os.ReadFile(filepath.Join(dir, "history.jsonl"))
				if n := strings.Count(string(data), "\n"); code != 0 || err != nil || n != convs*perConv {
					b.Fatalf("exit code %d, %v, %d lines, want %d", code, err, n, convs*perConv)
				}
				calls += len(s.Requests())
				for _, r := range s.Requests() {
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
