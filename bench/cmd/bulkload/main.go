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
// under one account's limit. Each has its own limiter, its setting's.
//
// With -shared, the clients share a limiter instead (only -setting
// adaptive or fixed, which have one to share):
//
//   - -shared memory: the K clients run in this process, as goroutines,
//     each a convo.Client of its own, all given one limiter: one
//     convo.AdaptiveRate() for adaptive, one convo.FixedRate(rate) for
//     fixed (one pace, one queue).
//   - -shared redis://host:port[/db] (as redis.ParseURL reads it): the K
//     clients run in processes of their own, as with -clients alone, each
//     paced by a redislimit.Limiter on that Redis for the fake's key, at
//     redislimit.WithRate(rate) for fixed and with the rate learnt for
//     all of them for adaptive. Each run names its limit afresh
//     (redislimit.WithName, a random name), so that no run meets what an
//     earlier one left in Redis. The Redis must answer PING before a run.
//     -redis-timeout sets each Limiter's WithTimeout (default its own,
//     50 ms).
//   - -shared redis: the same, through a redis-server the command starts
//     on a free loopback port (--save "" --appendonly no) and stops at its
//     end; it fails, saying so, when redis-server is not installed. With
//     -redis-outage kill or stop, in the middle of each run (N ÷ rate ÷ 2
//     after the common start) that server is killed (SIGKILL) and started
//     again, empty, on the same port -redis-outage-for later (default
//     5s), or stopped (SIGSTOP) and resumed (SIGCONT) that much later.
//     Meanwhile each Limiter paces its process by its fallback, a
//     convo.AdaptiveRate of its own: no call should fail for it.
//
// For example:
//
//	go run ./cmd/bulkload -setting adaptive
//	go run ./cmd/bulkload -setting userlimiter -runs 5
//	go run ./cmd/bulkload -setting off -kinds fixed -rates 100 -json
//	go run ./cmd/bulkload -clients 4 -kinds sliding -rates 100
//	go run ./cmd/bulkload -shared memory -setting fixed -clients 8 -rates 100,1000
//	go run ./cmd/bulkload -shared redis -setting fixed -clients 4 -rates 100 -n 3000
//	go run ./cmd/bulkload -shared redis -setting fixed -clients 4 -rates 100 -n 3000 -kinds bucket -redis-outage kill
//
// It prints one line per run: the setting (with its retry budget), the
// kind, the rate, N, the clients, how they share a limiter (none, memory,
// redis, or redis+kill5s and the like with an outage), the wall time, that
// time over N ÷ rate, the time budget (1.25 × N ÷ rate + 1 s for one
// client), the failed calls, the duplicates, the requests re-sent before
// their Retry-After, the 429 answers, the requests, Jain's fairness index
// over the clients' throughputs, and the bounds the run broke; with
// several clients, each is followed by each client's figures, through
// Redis by the times each client's limiter said Redis did not answer and
// answered again (and when the outage was), and with -timeline, by the
// answers of each 250 ms, accepted/refused. It exits 1 when a run breaks a
// bound it is held to: with a limiter each, every bound for adaptive (with
// several clients, the fairness too); no failure, duplicate or early
// re-send for fixed and off; those and the time for userlimiter. With a
// shared limiter, whatever the setting, no failure, duplicate or early
// re-send, and: in memory with fixed, the time (1.1 × N ÷ rate + 1 s), the
// 429s (2 % of N + 2·K) and the fairness (Jain ≥ 0.95); in memory with
// adaptive, one client's time and 429s; through Redis, the time
// (1.15 × N ÷ rate + 1 s) and the 429s (2 % of N + 2·K), or with an
// outage the time only (1.5 × N ÷ rate + 2 s).
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

	"github.com/redis/go-redis/v9"

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
	// shared is how the clients share a limiter; with SharedRedis,
	// redisURL is the Redis given, or empty when the command starts its
	// own (ownRedis).
	shared       bulk.Sharing
	redisURL     string
	ownRedis     bool
	redisTimeout time.Duration
	outage       bulk.OutageKind
	outageFor    time.Duration
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
	shared := fs.String("shared", "none", "how the clients share a limiter: none (each its own), memory (one limiter, every client in this process), "+
		"redis (through a redis-server the command starts) or redis://host:port[/db] (through that Redis); adaptive and fixed only")
	outage := fs.String("redis-outage", "", "with -shared redis: kill or stop the command's redis-server in the middle of each run")
	outageFor := fs.Duration("redis-outage-for", 5*time.Second, "how long each -redis-outage lasts")
	redisTimeout := fs.Duration("redis-timeout", 0, "with -shared redis: each redislimit.Limiter's WithTimeout (0: its default, 50 ms)")
	if err := fs.Parse(args); err != nil {
		return flags{}, err
	}
	f := flags{setting: bulk.Setting(*setting), n: *n, runs: *runs, concurrency: *concurrency,
		latency: *lat, retries: *retries, clients: *clients, json: *asJSON, timeline: *timeline,
		redisTimeout: *redisTimeout, outage: bulk.OutageKind(*outage), outageFor: *outageFor}
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
	return f, f.parseSharing(*shared)
}

// parseSharing reads -shared into f, and checks it and the Redis flags
// against the setting.
func (f *flags) parseSharing(shared string) error {
	switch {
	case shared == "none" || shared == "":
		f.shared = bulk.NotShared
	case shared == "memory":
		f.shared = bulk.SharedMemory
	case shared == "redis":
		f.shared, f.ownRedis = bulk.SharedRedis, true
	case strings.HasPrefix(shared, "redis://") || strings.HasPrefix(shared, "rediss://"):
		if _, err := redis.ParseURL(shared); err != nil {
			return fmt.Errorf("-shared: %w", err)
		}
		f.shared, f.redisURL = bulk.SharedRedis, shared
	default:
		return errors.New("-shared: want none, memory, redis or redis://host:port")
	}
	if f.shared != bulk.NotShared && f.setting != bulk.Adaptive && f.setting != bulk.Fixed {
		return fmt.Errorf("-shared %s: -setting %s has no limiter to share: want -setting adaptive or fixed", f.shared, f.setting)
	}
	if f.redisTimeout != 0 && (f.shared != bulk.SharedRedis || f.redisTimeout < 0) {
		return errors.New("-redis-timeout: only with -shared redis or redis://…, and positive")
	}
	switch f.outage {
	case bulk.NoOutage:
		return nil
	case bulk.OutageKill, bulk.OutageStop:
	default:
		return fmt.Errorf("-redis-outage %q: want kill or stop", string(f.outage))
	}
	if !f.ownRedis {
		return errors.New("-redis-outage: only with -shared redis, the command's own redis-server, which it can kill and start again")
	}
	if f.outageFor <= 0 {
		return fmt.Errorf("-redis-outage-for %v: want a positive duration", f.outageFor)
	}
	return nil
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
	Shared   string   `json:"shared"`           // none, memory or redis
	Outage   string   `json:"outage,omitempty"` // with -redis-outage: "kill 5s" or "stop 5s"
	Jain     float64  `json:"jain"`
	Broken   []string `json:"broken"`
	// OutageSpan is when the outage was, from the common start; absent
	// when the run ended before it was due.
	OutageSpan *outageSpan `json:"outage_span,omitempty"`
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
	// Through Redis: the times the client's limiter said Redis did not
	// answer (its fallback paced from then on), and answered again.
	RedisDown int `json:"redis_down,omitempty"`
	RedisBack int `json:"redis_back,omitempty"`
}

// outageSpan is when a Redis outage began and ended, in seconds from the
// common start.
type outageSpan struct {
	Began float64 `json:"began_seconds"`
	Ended float64 `json:"ended_seconds"`
}

const header = "%-29s %-8s %5s %5s %7s %-12s %3s %8s %6s %7s %6s %5s %5s %6s %6s %5s  %s\n"
const line = "%-29s %-8s %5d %5d %7d %-12s %3d %7.2fs %6.2f %6.2fs %6d %5d %5d %6d %6d %5.2f  %s\n"

func run(args []string, out io.Writer) (int, error) {
	f, err := parseFlags(args)
	if err != nil {
		return 2, err
	}
	var outage bulk.Outage
	if f.ownRedis {
		srv, err := bulk.StartRedis()
		if errors.Is(err, bulk.ErrNoRedisServer) {
			return 1, fmt.Errorf("-shared redis starts a redis-server of its own, and %w: install it (e.g. apt-get install -y redis-server), "+
				"or give the URL of a Redis: -shared redis://host:port", bulk.ErrNoRedisServer)
		}
		if err != nil {
			return 1, err
		}
		defer srv.Close()
		f.redisURL = srv.URL()
		if f.outage != bulk.NoOutage {
			outage = bulk.Outage{Kind: f.outage, For: f.outageFor, Server: srv}
		}
	}
	if !f.json {
		fmt.Fprintf(out, header, "setting", "kind", "rate", "N", "clients", "shared", "run", "time", "×ideal", "budget",
			"failed", "dups", "early", "429s", "reqs", "jain", "broken bounds")
	}
	enc := json.NewEncoder(out)
	broken := 0
	for _, k := range f.kinds {
		for _, r := range f.rates {
			cfg := bulk.Config{Setting: f.setting, Kind: k, Rate: r, N: f.n, Concurrency: f.concurrency,
				Latency: f.latency, Retries: f.retries, Clients: f.clients,
				Shared: f.shared, RedisURL: f.redisURL, RedisTimeout: f.redisTimeout, Outage: outage}
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
				shared := rw.Shared
				if rw.Outage != "" {
					shared += "+" + strings.ReplaceAll(rw.Outage, " ", "")
				}
				fmt.Fprintf(out, line, name, rw.Kind, rw.Rate, rw.N, rw.Clients, shared, rw.Run, rw.Seconds, rw.XIdeal, rw.Budget,
					rw.Failed, rw.Dups, rw.Early, rw.Refused, rw.Requests, rw.Jain, strings.Join(rw.Broken, ","))
				if rw.Clients > 1 {
					fmt.Fprintln(out, "    per client, calls/failed finish calls/s 429s:", perClient(rw.PerClient))
				}
				if rw.Shared == bulk.SharedRedis.String() {
					fmt.Fprintln(out, "   ", redisLine(rw))
				}
				if f.timeline {
					fmt.Fprintln(out, "    accepted/refused per 250 ms:", timeline(rw.Timeline))
				}
			}
		}
	}
	if broken > 0 {
		if f.shared != bulk.NotShared {
			return 1, fmt.Errorf("%d run(s) broke a bound of %s shared (%s)", broken, f.setting, f.shared)
		}
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
		Requests: res.Requests, Clients: max(cfg.Clients, 1), Shared: cfg.Shared.String(), Jain: res.Jain(), Broken: []string{}}
	if cfg.Outage.Kind != bulk.NoOutage {
		rw.Outage = string(cfg.Outage.Kind) + " " + cfg.Outage.For.String()
	}
	if s := res.Outage; s != nil {
		rw.OutageSpan = &outageSpan{Began: s.Began.Seconds(), Ended: s.Ended.Seconds()}
	}
	for _, c := range res.Clients {
		rw.PerClient = append(rw.PerClient, clientRow{Calls: c.Calls, Failed: c.Failed, Errors: c.Errors, Seconds: c.Finish.Seconds(),
			Throughput: c.Throughput(), Requests: c.Requests, Refused: c.Refused, RedisDown: c.RedisDown, RedisBack: c.RedisBack})
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

// redisLine tells of a run through Redis: when its outage was, if it had
// one, and how many times each client's limiter said Redis did not answer
// and answered again ("down/back", separated by " | ").
func redisLine(rw row) string {
	var b strings.Builder
	b.WriteString("redis")
	switch {
	case rw.OutageSpan != nil:
		fmt.Fprintf(&b, " %s from %.2fs to %.2fs;", strings.Fields(rw.Outage)[0], rw.OutageSpan.Began, rw.OutageSpan.Ended)
	case rw.Outage != "":
		b.WriteString(" outage not done (the run ended before its middle);")
	}
	parts := make([]string, len(rw.PerClient))
	for i, c := range rw.PerClient {
		parts[i] = fmt.Sprintf("%d/%d", c.RedisDown, c.RedisBack)
	}
	b.WriteString(" not answering/answering again, per client: ")
	b.WriteString(strings.Join(parts, " | "))
	return b.String()
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
