//go:build linux

package fake_test

import (
	"testing"

	"github.com/convoapi/convo-go/fake"
	"github.com/convoapi/convo-go/internal/cpupair"
)

// BenchmarkScaleRequestCPU serves the pairs of BenchmarkScaleRequest (the
// fake with its journal on at the default bounds, and the static handler)
// in turn, one request of each per iteration, after filling the journal,
// and reports the ratio of the CPU time each took as x-static. CPU time is
// the thread's own (the goroutine is locked to it), so the time the thread
// waits for a core on a busy machine counts for neither, and the load of the
// moment weighs on both alike; the background work of the garbage
// collector, on other threads, counts for neither either. The -nojournal
// pairs serve the same requests from a fake with the journal off
// (WithJournalLimit(0)), to show what keeping each request costs:
//
//	go test ./fake -run '^$' -bench ScaleRequestCPU -benchtime 20000x -count 5
func BenchmarkScaleRequestCPU(b *testing.B) {
	s, page := requestBenchServer(b)
	noJournal, _ := requestBenchServer(b, fake.WithJournalLimit(0))
	for _, target := range []struct{ name, path string }{
		{"channels", "/v1/channels"},
		{"messages-100", page},
	} {
		static := cpupair.Static(cpupair.Serve(b, s.Handler(), target.path, s.APIKey()))
		filled := false
		b.Run(target.name, func(b *testing.B) {
			for ; !filled; filled = true {
				for range fake.DefaultJournalLimit {
					cpupair.Serve(b, s.Handler(), target.path, s.APIKey())
				}
			}
			cpupair.Run(b, "fake", func() { cpupair.Serve(b, s.Handler(), target.path, s.APIKey()) }, func() { cpupair.Serve(b, static, target.path, s.APIKey()) })
		})
		b.Run(target.name+"-nojournal", func(b *testing.B) {
			cpupair.Run(b, "fake", func() { cpupair.Serve(b, noJournal.Handler(), target.path, noJournal.APIKey()) }, func() { cpupair.Serve(b, static, target.path, s.APIKey()) })
		})
	}
}
