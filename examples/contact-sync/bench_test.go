package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	convo "github.com/convoapi/convo-go"
	"github.com/convoapi/convo-go/examples/internal/demotest"
	"github.com/convoapi/convo-go/fake"
)

// BenchmarkSyncOverNetwork syncs a CSV (a third of whose contacts exist,
// with a tag to remove) through a fake that answers every request after
// 50 ms, and reports the wall time against the ideal calls × RTT /
// concurrency (x-ideal; the goal is at most 1.3), the calls made and the 429
// answers. The rate-limited case offers about 640 requests a second to a
// limit of 100 a second (burst 10): every row must still be synced once.
//
//	go test ./examples/contact-sync -run '^$' -bench SyncOverNetwork -benchtime 1x
func BenchmarkSyncOverNetwork(b *testing.B) {
	const rtt = 50 * time.Millisecond
	cases := []struct {
		name              string
		rows, concurrency int
		opts              []fake.Option
	}{
		{"sequential-200rows", 200, 1, nil}, // 2,000 would take four minutes
		{"concurrency8-2000rows", 2000, 8, nil},
		{"concurrency32-2000rows", 2000, 32, nil},
		{"ratelimited-100rps-concurrency32-300rows", 300, 32, []fake.Option{fake.WithRateLimit(100, 10)}},
	}
	for _, tc := range cases {
		b.Run(tc.name, func(b *testing.B) {
			var wall, ideal time.Duration
			var calls, limited int
			for b.Loop() {
				b.StopTimer()
				s := demotest.Fake(b, time.Time{}, append(tc.opts, fake.WithJournalLimit(1<<20))...) // the rate limiter runs on a real clock
				acc := s.Company().AddChannel(fake.ChannelAccount{Channel: convo.ChannelChatapp, DisplayName: "Sales", ProviderIdentifier: line})
				var csv strings.Builder
				csv.WriteString("phone,name,cf:city,remove_tags\n")
				for i := range tc.rows {
					tag := ""
					if i%3 == 0 {
						s.Company().AddContact(fake.Contact{ChannelAccountID: acc, PhoneNumber: fmt.Sprintf("55119%08d", i), Name: "Old", Tags: []string{"trial"}})
						tag = s.Company().TagID("trial")
					}
					fmt.Fprintf(&csv, "55119%08d,Row %d,City %d,%s\n", i, i, i%9, tag)
				}
				file := writeCSV(b, csv.String())
				s.AddFault(fake.Fault{Latency: rtt})
				b.StartTimer()
				start := time.Now()
				code := run(context.Background(), []string{"--file", file, "--phone-number-id", line, "--concurrency", fmt.Sprint(tc.concurrency)}, io.Discard, io.Discard)
				wall += time.Since(start)
				b.StopTimer()
				if code != 0 {
					b.Fatalf("exit code %d", code)
				}
				for _, r := range s.Requests() {
					if calls++; r.Status == http.StatusTooManyRequests {
						limited++
					}
				}
				ideal += time.Duration(len(s.Requests())) * rtt / time.Duration(tc.concurrency)
				// Nothing lost, nothing duplicated: each row's contact once, with its field.
				for i := range tc.rows {
					if ct, ok := s.Company().ContactByPhone(acc, fmt.Sprintf("55119%08d", i)); !ok || ct.CustomFields["city"] != fmt.Sprint("City ", i%9) {
						b.Fatalf("row %d: contact %v, fields %v", i, ok, ct.CustomFields)
					}
				}
				if n := len(s.Company().Contacts()); n != tc.rows {
					b.Fatalf("%d contacts for %d rows", n, tc.rows)
				}
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
