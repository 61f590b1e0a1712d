//go:build linux

package main

import (
	"testing"

	"github.com/convoapi/convo-go/fake"
	"github.com/convoapi/convo-go/internal/cpupair"
)

// BenchmarkScaleRequestCPU serves the pairs of BenchmarkScaleRequest
// (convofake's API handler with the journal on at its default bounds, and
// the static handler) in turn, one request of each per iteration, after
// filling the journal, and reports the ratio of the CPU time each took as
// x-static. CPU time is the thread's own (the goroutine is locked to it),
// so the time the thread waits for a core on a busy machine counts for
// neither, and the load of the moment weighs on both alike; the background
// work of the garbage collector, on other threads, counts for neither
// either:
//
//	go test ./cmd/convofake -run '^$' -bench ScaleRequestCPU -benchtime 20000x -count 5
func BenchmarkScaleRequestCPU(b *testing.B) {
	path, _ := writeStateFile(b, 1, 150)
	a := startBenchApp(b, path)
	defer stopBenchApp(a)
	api, _ := a.handlers()
	host, key := a.apiLn.Addr().String(), a.srv.APIKey()
	for _, target := range requestBenchTargets {
		static := staticHandler(serveBench(b, api, host, key, target.path))
		filled := false
		b.Run(target.name, func(b *testing.B) {
			for ; !filled; filled = true {
				for range fake.DefaultJournalLimit {
					serveBench(b, api, host, key, target.path)
				}
			}
			cpupair.Run(b, "convofake", func() { serveBench(b, api, host, key, target.path) }, func() { serveBench(b, static, host, key, target.path) })
		})
	}
}
