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
	"github.com/convoapi/convo-go/examples/internal/demo"
	"github.com/convoapi/convo-go/fake"
)

// rtt is the round trip the benchmarks model: the fake waits this long
// before answering every request.
const rtt = 50 * time.Millisecond

// networkWorld is a fake whose every answer takes rtt, with a third of the
// file's contacts already there (every third row, which also removes a tag).
func networkWorld(b *testing.B, rows int, opts ...fake.Option) (*fake.Server, string, string) {
	b.Helper()
	s := fake.NewServer(append([]fake.Option{fake.WithJournalLimit(1 << 20)}, opts...)...)
	b.Cleanup(s.Close)
	co := s.Company()
	acc := co.AddChannel(fake.ChannelAccount{Channel: convo.ChannelChatapp, DisplayName: "Sales", ProviderIdentifier: line})
	var csv strings.Builder
	csv.WriteString("phone,name,cf:city,remove_tags\n")
	for i := range rows {
		phone := fmt.Sprintf("55119%08d", i)
		tags := ""
		if i%3 == 0 {
			co.AddContact(fake.Contact{ChannelAccountID: acc, PhoneNumber: phone, Name: fmt.Sprint("Row ", i), Tags: []string{"trial"}})
			tags = co.TagID("trial")
		}
		fmt.Fprintf(&csv, "%s,Row %d,City %d,%s\n", phone, i, i%9, tags)
	}
	file := filepath.Join(b.TempDir(), "rows.csv")
	if err := os.WriteFile(file, []byte(csv.String()), 0o600); err != nil {
		b.Fatal(err)
	}
	s.AddFault(fake.Fault{Latency: rtt})
	demo.PointAt(b, s)
	return s, acc, file
}

// BenchmarkSyncOverNetwork syncs a CSV through a fake that answers every
// request after 50 ms, and reports the wall time against the ideal
// calls × RTT / concurrency (x-ideal; the goal is at most 1.3), the calls
// made and the 429 answers. The sequential case has 200 rows (2,000 would
// take four minutes: it scales with the calls); the concurrent ones 2,000.
// The rate-limited case offers about 640 requests a second to a limit of
// 100 a second (burst 10): every row must still be synced exactly once.
//
//	go test ./examples/contact-sync -run '^$' -bench SyncOverNetwork -benchtime 1x
func BenchmarkSyncOverNetwork(b *testing.B) {
	cases := []struct {
		name        string
		rows        int
		concurrency int
		opts        []fake.Option
	}{
		{"sequential-200rows", 200, 1, nil},
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
				s, acc, file := networkWorld(b, tc.rows, tc.opts...)
				b.StartTimer()
				start := time.Now()
				code := run(context.Background(), []string{"--file", file, "--phone-number-id", line,
					"--concurrency", fmt.Sprint(tc.concurrency)}, io.Discard, io.Discard)
				wall += time.Since(start)
				b.StopTimer()
				if code != 0 {
					b.Fatalf("exit code %d", code)
				}
				n, l := countCalls(s)
				calls += n
				limited += l
				ideal += time.Duration(n) * rtt / time.Duration(tc.concurrency)
				checkEveryRowOnce(b, s, acc, tc.rows)
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

// countCalls counts the API calls answered (429s included) and the 429s.
func countCalls(s *fake.Server) (calls, limited int) {
	for _, r := range s.Requests() {
		calls++
		if r.Status == http.StatusTooManyRequests {
			limited++
		}
	}
	return calls, limited
}

// checkEveryRowOnce fails unless each row's contact exists exactly once
// with its custom field: nothing lost, nothing duplicated.
func checkEveryRowOnce(b *testing.B, s *fake.Server, acc string, rows int) {
	b.Helper()
	cts := s.Company().Contacts()
	if len(cts) != rows {
		b.Fatalf("%d contacts for %d rows", len(cts), rows)
	}
	for i := range rows {
		ct, ok := s.Company().ContactByPhone(acc, fmt.Sprintf("55119%08d", i))
		if !ok || ct.CustomFields["city"] != fmt.Sprint("City ", i%9) {
			b.Fatalf("row %d: contact %v, fields %v", i, ok, ct.CustomFields)
		}
	}
}
