//go:build linux

package main

import (
	"io"
	"log/slog"
	"testing"

	"github.com/convoapi/convo-go/fake"
	"github.com/convoapi/convo-go/internal/testkit"
)

// BenchmarkScaleRequestCPU serves the pairs of BenchmarkScaleRequest
// (convofake's API handler with the journal on at its default bounds, and
// the static handler) in turn, one request of each per iteration, after
// filling the journal, and reports the ratio of the CPU time each took as
// x-static. CPU time is the thread's own (the goroutine is locked to it),
// so the time the thread waits for a core on a busy machine counts for
// neither, and the load of the moment weighs on both alike; the background
// work of the garbage collector, on other threads, counts for neither
// either. The -nolog pairs serve the same requests through the same
// handler with the request log's level above Info (no line is made), to
// show what the log line costs:
//
//	go test ./cmd/convofake -run '^$' -bench ScaleRequestCPU -benchtime 20000x -count 5
func BenchmarkScaleRequestCPU(b *testing.B) {
	path, _ := writeStateFile(b, 1, 150)
	a := startBenchApp(b, path)
	defer stopBenchApp(a)
	api, _ := a.handlers()
	logger := a.logger
	a.logger = slog.New(slog.NewTextHandler(io.Discard, &slog.HandlerOptions{Level: slog.LevelWarn}))
	apiNoLog, _ := a.handlers()
	a.logger = logger
	host, key := a.apiLn.Addr().String(), a.srv.APIKey()
	for _, target := range requestBenchTargets {
		url := "http://" + host + target.path
		static := testkit.Static(testkit.Serve(b, api, url, key))
		filled := false
		b.Run(target.name, func(b *testing.B) {
			for ; !filled; filled = true {
				for range fake.DefaultJournalLimit {
					testkit.Serve(b, api, url, key)
				}
			}
			testkit.Run(b, "convofake", func() { testkit.Serve(b, api, url, key) }, func() { testkit.Serve(b, static, url, key) })
		})
		b.Run(target.name+"-nolog", func(b *testing.B) {
			testkit.Run(b, "convofake", func() { testkit.Serve(b, apiNoLog, url, key) }, func() { testkit.Serve(b, static, url, key) })
		})
	}
}
