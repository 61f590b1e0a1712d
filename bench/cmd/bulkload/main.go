// Command bulkload measures, in real time, how the client keeps a bulk job
// under a service's request limit: for each kind of limit the fake can be
// (token bucket with burst 10, fixed window, sliding window) and each rate,
// it creates N contacts through convo.Parallel at concurrency 32 with 5 ms
// of latency per request, over loopback TCP with the client's default
// transport, and judges each run from the fake's journal.
//
// With -clients K (K > 1), K clients share the fake's one API key, each in
// a process of its own (this binary again, in a child mode that main
// checks first), N split evenly between them, all started together, each
// at concurrency -concurrency (default 8): several replicas or workers
// under one account's limit.
//
//	go run ./cmd/bulkload -setting adaptive
//	go run ./cmd/bulkload -setting userlimiter -runs 5
//	go run ./cmd/bulkload -setting off -kinds fixed -rates 100 -json
//	go run ./cmd/bulkload -clients 4 -kinds sliding -rates 100
//
// It prints one line per run: the setting (with its retry budget), the
// kind, the rate, N, the clients, the wall time, that time over N ÷ rate,
// the time budget (1.25 × N ÷ rate + 1 s for one client), the failed calls,
// the duplicates, the requests re-sent before their Retry-After, the 429
// answers, the requests, Jain's fairness index over the clients'
// throughputs, and the bounds the run broke; with several clients, each is
// followed by each client's figures, and with -timeline, by the answers of
// each 250 ms, accepted/refused. It exits 1 when a run breaks a bound its
// setting is held to: every bound for adaptive (with several clients, the
// fairness too); no failure, duplicate or early re-send for fixed and off;
// those and the time for userlimiter.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/convoapi/convo-go/bench/internal/bulk"
)

func main() {
	// A client of a run of several is this binary again: it must not
	// parse the command's flags, nor start a run of its own.
	if bulk.IsChild() {
		os.Exit(bulk.ChildMain())
	}
	code, err := run(os.Args[1:], os.Stdout)
	if err != nil {
		fmt.Fprintln(os.Stderr, "bulkload:", err)
	}
	os.Exit(code)
}

// flags are the command's options.
type flags struct {
	setting     bulk.Setting
	kinds       []bulk.Kind
	rates       []int
	n           int
	runs        int
	concurrency int
	latency     time.Duration
	retries     int
	clients     int
	json        bool
	timeline    bool
}

func parseFlags(args []string) (flags, error) {
	fs := flag.NewFlagSet("bulkload", flag.ContinueOnError)
	setting := fs.String("setting", string(bulk.Adaptive), "the client's pacing: adaptive, fixed, off or userlimiter")
	kinds := fs.String("kinds", "bucket,fixed,sliding", "the fake's kinds of limit, comma-separated")
	rates := fs.String("rates", "10,100,1000", "the limit's rates per second, comma-separated")
	n := fs.Int("n", 0, "contacts created per run, by all clients together (0: 200 at 10/s, 1000 at 100/s, 5000 at 1000/s)")
	runs := fs.Int("runs", 1, "runs of each cell")
	concurrency := fs.Int("concurrency", 0, "Parallel's limit, per client (0: 32 for one client, 8 each for several)")
	lat := fs.Duration("latency", 5*time.Millisecond, "time each request spends on the wire, half each way")
	retries := fs.Int("retries", -1, "the client's retry budget (-1: the client's default; 10 for -setting off)")
	clients := fs.Int("clients", 1, "clients sharing the key, each in a process of its own, N split between them")
	asJSON := fs.Bool("json", false, "print one JSON object per run instead of the table")
	timeline := fs.Bool("timeline", false, "also give each run's answers per 250 ms: accepted/refused")
	if err := fs.Parse(args); err != nil {
		return flags{}, err
	}
	f := flags{setting: bulk.Setting(*setting), n: *n, runs: *runs, concurrency: *concurrency,
		latency: *lat, retries: *retries, clients: *clients, json: *asJSON, timeline: *timeline}
	if f.concurrency == 0 {
		f.concurrency = defaultConcurrency(f.clients)
	}
	known := false
	for _, s := range bulk.Settings {
		known = known || s == f.setting
	}
	if !known {
		return f, fmt.Errorf("-setting %q: want adaptive, fixed, off or userlimiter", *setting)
	}
	for name := range strings.SplitSeq(*kinds, ",") {
		k, ok := bulk.KindNamed(strings.TrimSpace(name))
		if !ok {
			return f, fmt.Errorf("-kinds: unknown kind %q (want bucket, fixed, sliding)", name)
		}
		f.kinds = append(f.kinds, k)
	}
	for s := range strings.SplitSeq(*rates, ",") {
		r, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || r <= 0 {
			return f, fmt.Errorf("-rates: %q is not a positive whole rate", s)
		}
		n, ok := bulk.DefaultN(r)
		if !ok && f.n <= 0 {
			return f, fmt.Errorf("-rates: %d/s has no default N: give -n", r)
		}
		if f.n > 0 {
			n = f.n
		}
		if n < f.clients {
			return f, fmt.Errorf("-clients %d: %d contacts at %d/s cannot be shared between them", f.clients, n, r)
		}
		f.rates = append(f.rates, r)
	}
	if f.runs < 1 || f.concurrency < 1 || f.clients < 1 || f.latency < 0 {
		return f, errors.New("-runs, -concurrency and -clients must be positive, -latency not negative")
	}
	return f, nil
}

// defaultConcurrency is Parallel's limit per client when -concurrency is
// not given: 32 for one client, as the benchmark has always run, so that
// its figures stay comparable; 8 for each of several, within the 4–16 a
// replica or worker commonly runs, and so that K clients together do not
// keep K × 32 requests in flight.
func defaultConcurrency(clients int) int {
	if clients > 1 {
		return 8
	}
	return 32
}

// row is one run, as printed.
type row struct {
	Setting  string   `json:"setting"`
	Retries  int      `json:"retries"` // -1: the client's default
	Kind     string   `json:"kind"`
	Rate     int      `json:"rate"`
	N        int      `json:"n"`
	Run      int      `json:"run"`
	Seconds  float64  `json:"seconds"`
	XIdeal   float64  `json:"x_ideal"`
	Budget   float64  `json:"budget_seconds"`
	Failed   int      `json:"failed"`
	Dups     int      `json:"duplicates"`
	Early    int      `json:"early_resends"`
	Refused  int      `json:"refused_429"`
	MaxRef   int      `json:"max_429"`
	Requests int      `json:"requests"`
	Clients  int      `json:"clients"`
	Jain     float64  `json:"jain"`
	Broken   []string `json:"broken"`
	// PerClient holds each client's figures, in the order of their shares.
	PerClient []clientRow `json:"per_client"`
	// Timeline is given with -timeline only.
	Timeline []bulk.Slot `json:"timeline,omitempty"`
}

// clientRow is one client's figures in a run, as printed.
type clientRow struct {
	Calls      int      `json:"calls"`
	Failed     int      `json:"failed"`
	Errors     []string `json:"errors,omitempty"` // the first few different ones
	Seconds    float64  `json:"seconds"`          // its finish, from the common start
	Throughput float64  `json:"calls_per_second"`
	Requests   int      `json:"requests"`
	Refused    int      `json:"refused_429"`
}

const header = "%-29s %-8s %5s %5s %7s %3s %8s %6s %7s %6s %5s %5s %6s %6s %5s  %s\n"
const line = "%-29s %-8s %5d %5d %7d %3d %7.2fs %6.2f %6.2fs %6d %5d %5d %6d %6d %5.2f  %s\n"

func run(args []string, out io.Writer) (int, error) {
	f, err := parseFlags(args)
	if err != nil {
		return 2, err
	}
	if !f.json {
		fmt.Fprintf(out, header, "setting", "kind", "rate", "N", "clients", "run", "time", "×ideal", "budget",
			"failed", "dups", "early", "429s", "reqs", "jain", "broken bounds")
	}
	enc := json.NewEncoder(out)
	broken := 0
	for _, k := range f.kinds {
		for _, r := range f.rates {
			cfg := bulk.Config{Setting: f.setting, Kind: k, Rate: r, N: f.n, Concurrency: f.concurrency,
				Latency: f.latency, Retries: f.retries, Clients: f.clients}
			if cfg.N <= 0 {
				cfg.N, _ = bulk.DefaultN(r)
			}
			for i := 1; i <= f.runs; i++ {
				rw, err := runOne(cfg, i, f.timeline)
				if err != nil {
					return 1, fmt.Errorf("%s %s %d/s run %d: %w", f.setting, k.Name, r, i, err)
				}
				if len(rw.Broken) > 0 {
					broken++
				}
				if f.json {
					if err := enc.Encode(rw); err != nil {
						return 1, err
					}
					continue
				}
				name := rw.Setting + " (retries " + strconv.Itoa(rw.Retries) + ")"
				if rw.Retries < 0 {
					name = rw.Setting + " (retries default)"
				}
				fmt.Fprintf(out, line, name, rw.Kind, rw.Rate, rw.N, rw.Clients, rw.Run, rw.Seconds, rw.XIdeal, rw.Budget,
					rw.Failed, rw.Dups, rw.Early, rw.Refused, rw.Requests, rw.Jain, strings.Join(rw.Broken, ","))
				if rw.Clients > 1 {
					fmt.Fprintln(out, "    per client, calls/failed finish calls/s 429s:", perClient(rw.PerClient))
				}
				if f.timeline {
					fmt.Fprintln(out, "    accepted/refused per 250 ms:", timeline(rw.Timeline))
				}
			}
		}
	}
	if broken > 0 {
		return 1, fmt.Errorf("%d run(s) broke a bound of %s", broken, f.setting)
	}
	return 0, nil
}

// runOne runs one cell once, with a deadline far beyond any sane run, so
// that a wedged run ends (its calls then count as failed).
func runOne(cfg bulk.Config, i int, withTimeline bool) (row, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*cfg.Budget()+time.Minute)
	defer cancel()
	res, err := bulk.Run(ctx, cfg)
	if err != nil {
		return row{}, err
	}
	retries := cfg.Retries
	if retries < 0 {
		retries = cfg.Setting.DefaultRetries()
	}
	rw := row{Setting: string(cfg.Setting), Retries: retries, Kind: cfg.Kind.Name, Rate: cfg.Rate, N: cfg.N, Run: i,
		Seconds: res.Took.Seconds(), XIdeal: res.Took.Seconds() / cfg.Ideal().Seconds(), Budget: cfg.Budget().Seconds(),
		Failed: res.Failed, Dups: res.Duplicates, Early: res.Early, Refused: res.Refused, MaxRef: cfg.MaxRefused(res.Took),
		Requests: res.Requests, Clients: max(cfg.Clients, 1), Jain: res.Jain(), Broken: []string{}}
	for _, c := range res.Clients {
		rw.PerClient = append(rw.PerClient, clientRow{Calls: c.Calls, Failed: c.Failed, Errors: c.Errors, Seconds: c.Finish.Seconds(),
			Throughput: c.Throughput(), Requests: c.Requests, Refused: c.Refused})
	}
	for _, b := range cfg.Broken(res) {
		rw.Broken = append(rw.Broken, string(b))
	}
	if withTimeline {
		rw.Timeline = res.Timeline
	}
	return rw, nil
}

// perClient writes each client's figures: "calls/failed finish calls/s
// 429s", separated by " | ".
func perClient(clients []clientRow) string {
	parts := make([]string, len(clients))
	for i, c := range clients {
		parts[i] = fmt.Sprintf("%d/%d %.2fs %.1f/s %d", c.Calls, c.Failed, c.Seconds, c.Throughput, c.Refused)
	}
	return strings.Join(parts, " | ")
}

// timeline writes slots as "accepted/refused" pairs.
func timeline(slots []bulk.Slot) string {
	var b strings.Builder
	for i, s := range slots {
		if i > 0 {
			b.WriteByte(' ')
		}
		fmt.Fprintf(&b, "%d/%d", s.Accepted, s.Refused)
	}
	return b.String()
}
