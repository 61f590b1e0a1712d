//go:build linux

package fake_test

import (
	"encoding/json"
	"maps"
	"net/url"
	"slices"
	"testing"

	"github.com/convoapi/convo-go/fake"
	"github.com/convoapi/convo-go/internal/testkit"
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
		static := testkit.Static(testkit.Serve(b, s.Handler(), target.path, s.APIKey()))
		filled := false
		b.Run(target.name, func(b *testing.B) {
			for ; !filled; filled = true {
				for range fake.DefaultJournalLimit {
					testkit.Serve(b, s.Handler(), target.path, s.APIKey())
				}
			}
			testkit.Run(b, "fake", func() { testkit.Serve(b, s.Handler(), target.path, s.APIKey()) }, func() { testkit.Serve(b, static, target.path, s.APIKey()) })
		})
		b.Run(target.name+"-nojournal", func(b *testing.B) {
			testkit.Run(b, "fake", func() { testkit.Serve(b, noJournal.Handler(), target.path, noJournal.APIKey()) }, func() { testkit.Serve(b, static, target.path, s.APIKey()) })
		})
	}
}

// BenchmarkShortcutShare measures what each cache and shortcut of the
// fake saves: per request, a fake with that one shortcut left out against
// the same fake with every shortcut (journal on at its default bounds),
// one request of each per iteration, as the ratio of their CPU time
// (x-all; 1.25 means the shortcut saves a fifth of the request's CPU).
// The requests are those of BenchmarkScaleRequestCPU, a conversation list
// page and the second page of the messages (which signs a cursor):
//
//	go test ./fake -run '^$' -bench ShortcutShare -benchtime 5000x -count 10 | benchstat -col /off -
func BenchmarkShortcutShare(b *testing.B) {
	all, page := requestBenchServer(b)
	second := func(s *fake.Server) string {
		var out struct {
			Data struct {
				NextCursor string `json:"next_cursor"`
			} `json:"data"`
		}
		if err := json.Unmarshal(testkit.Serve(b, s.Handler(), page, s.APIKey()), &out); err != nil {
			b.Fatal(err)
		}
		return page + "&cursor=" + url.QueryEscape(out.Data.NextCursor)
	}
	names := slices.Sorted(maps.Keys(fake.Shortcuts))
	for _, target := range []struct {
		name string
		path func(*fake.Server) string
	}{
		{"channels", func(*fake.Server) string { return "/v1/channels" }},
		{"messages-100", func(*fake.Server) string { return page }},
		{"messages-page2", second},
		{"conversations", func(*fake.Server) string { return "/v1/conversations?limit=20" }},
	} {
		for _, name := range append(names, "all") {
			off := fake.Shortcuts[name]
			if name == "all" {
				off = fake.AllShortcuts
			}
			s, _ := requestBenchServer(b, fake.WithShortcutsOff(off))
			withPath, allPath := target.path(s), target.path(all)
			b.Run(target.name+"/off="+name, func(b *testing.B) {
				testkit.Run(b, "off", func() { testkit.Serve(b, s.Handler(), withPath, s.APIKey()) },
					func() { testkit.Serve(b, all.Handler(), allPath, all.APIKey()) })
			})
		}
	}
}
