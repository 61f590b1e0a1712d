package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	convo "github.com/convoapi/convo-go"
	"github.com/convoapi/convo-go/fake"
	"github.com/convoapi/convo-go/internal/testkit"
)

// convofake at scale, each figure against its floor in the same run:
//
//	go test ./cmd/convofake -run '^$' -bench 'Scale' -benchtime 0.3s -count 3
//
// (BenchmarkScaleStateLoad does one load per iteration: -benchtime 1x is
// enough for it.)

// benchNow is the frozen clock of the benchmarks' stores.
var benchNow = time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)

// writeStateFile exports a store of convs conversations of perConv text
// messages (plus three channel accounts) to a state file as a save writes
// it, and returns its path and size.
func writeStateFile(b *testing.B, convs, perConv int) (path string, size int64) {
	b.Helper()
	s, err := fake.NewHandler(fake.WithClock(fake.NewManualClock(benchNow)))
	if err != nil {
		b.Fatal(err)
	}
	co := s.Company()
	co.AddChannel(fake.ChannelAccount{Channel: convo.ChannelChatapp, DisplayName: "Sales"})
	co.AddChannel(fake.ChannelAccount{Channel: convo.ChannelBotapp, DisplayName: "Bot"})
	acc := co.AddChannel(fake.ChannelAccount{Channel: convo.ChannelChatapp, DisplayName: "Support"})
	for c := range convs {
		ct := co.AddContact(fake.Contact{ChannelAccountID: acc, PhoneNumber: fmt.Sprintf("55%011d", c)})
		cv := co.AddConversation(fake.Conversation{ID: fmt.Sprintf("f0000000-0000-4000-8000-%012d", c), ContactID: ct})
		for i := range perConv {
			co.AddMessage(cv, fake.Message{Sender: fake.SenderContact, Text: "Hello, I would like to know more about your plans for Brazil",
				At: benchNow.Add(-time.Duration(c*perConv+i+1) * time.Second)})
		}
	}
	path = filepath.Join(b.TempDir(), "state.json")
	f := &stateFile{path: path, srv: s}
	if err := f.save(); err != nil {
		b.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	return path, fi.Size()
}

// startBenchApp starts convofake on a state file, with no rate limit and
// its request log formatted as on stderr but thrown away.
func startBenchApp(b *testing.B, state string, extra ...string) *app {
	b.Helper()
	args := append([]string{"--addr", "127.0.0.1:0", "--state", state, "--rate-limit", "0", "--admin-token", testAdminToken}, extra...)
	cfg, err := parseFlags(args, io.Discard)
	if err != nil {
		b.Fatal(err)
	}
	a, err := startApp(cfg, newLogger("text", io.Discard))
	if err != nil {
		b.Fatal(err)
	}
	return a
}

func stopBenchApp(a *app) {
	a.closeListeners()
	a.state.lock.release()
}

// BenchmarkScaleRequest serves GET /v1/channels and a page of 100 messages
// through convofake's API handler (request log, host check, routing, the
// fake with its journal on at the default bounds; and with
// --journal-limit 0), and through a static handler writing the same
// bytes, in memory: the ratio is the CPU per request of the acceptance
// target.
func BenchmarkScaleRequest(b *testing.B) {
	path, _ := writeStateFile(b, 1, 150)
	a := startBenchApp(b, path)
	defer stopBenchApp(a)
	api, _ := a.handlers()
	path2, _ := writeStateFile(b, 1, 150)
	off := startBenchApp(b, path2, "--journal-limit", "0")
	defer stopBenchApp(off)
	apiOff, _ := off.handlers()
	host := a.apiLn.Addr().String()
	hostOff := off.apiLn.Addr().String()
	key := a.srv.APIKey()

	serve := func(b *testing.B, h http.Handler, host, target string) []byte {
		return testkit.Serve(b, h, "http://"+host+target, key)
	}
	for _, target := range requestBenchTargets {
		static := testkit.Static(serve(b, api, host, target.path))
		for _, h := range []struct {
			name, host string
			h          http.Handler
		}{{"convofake", host, api}, {"convofake-nojournal", hostOff, apiOff}, {"static", host, static}} {
			b.Run(target.name+"/"+h.name, func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					serve(b, h.h, h.host, target.path)
				}
			})
		}
	}
}

// requestBenchTargets are the two requests of the request benchmarks.
var requestBenchTargets = []struct{ name, path string }{
	{"channels", "/v1/channels"},
	{"messages-100", "/v1/conversations/f0000000-0000-4000-8000-000000000000/messages?limit=100"},
}

// BenchmarkScaleStateLoad starts convofake on a state file of 100,000
// messages (10,000 conversations of 10), against a json.Unmarshal of the
// same file into any, and reports the file's size. The start is timed in a
// new process, as a user starts convofake, until it has printed what to
// use: a start inside this process would find the pages of its heap
// mapped already by what came before, and took half the time or less.
func BenchmarkScaleStateLoad(b *testing.B) {
	path, size := writeStateFile(b, 10_000, 10)
	b.Run("unmarshal-any", func(b *testing.B) {
		for b.Loop() {
			data, err := os.ReadFile(path)
			if err != nil {
				b.Fatal(err)
			}
			var v any
			if err := json.Unmarshal(data, &v); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("convofake-start", func(b *testing.B) {
		for b.Loop() {
			startProcess(b, "--state", path, "--addr", "127.0.0.1:0", "--rate-limit", "0", "--admin-token", testAdminToken)
		}
	})
	b.Run("file-size", func(b *testing.B) {
		data, err := os.ReadFile(path)
		if err != nil {
			b.Fatal(err)
		}
		var compact bytes.Buffer
		if err := json.Compact(&compact, data); err != nil {
			b.Fatal(err)
		}
		for b.Loop() {
		}
		b.ReportMetric(float64(size)/1e6, "MB-file")
		b.ReportMetric(float64(compact.Len())/1e6, "MB-compact")
	})
}

// startProcess runs convofake with args as a process of its own (this test
// binary, running main) until it has printed what to use; then, off the
// timer, interrupts it and waits for it to end.
func startProcess(b *testing.B, args ...string) {
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), runMainEnv+"=1")
	var stdout, stderr testkit.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	ready := stdout.WaitFor("# try: ", safetyTimeout) // the last line it prints once it listens
	b.StopTimer()
	defer b.StartTimer()
	_ = cmd.Process.Signal(os.Interrupt)
	if err := cmd.Wait(); err != nil || !ready {
		b.Fatalf("convofake %v: ready %v, exit %v; stderr:\n%s", args, ready, err, stderr.String())
	}
}
