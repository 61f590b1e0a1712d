package bulk

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"

	convo "github.com/convoapi/convo-go"
	"github.com/convoapi/convo-go/redislimit"
)

// Sharing is how the clients of a run share a limiter.
type Sharing string

// The ways of sharing: none, each client with its setting's own limiter
// (the benchmark's runs until sharing came); one limiter of the SDK's
// (convo.AdaptiveRate, or convo.FixedRate at the rate) given to every
// client, all of them in this process; and a redislimit.Limiter in each
// client's process, all on one Redis and one limit (its learnt rate, or
// the rate set with redislimit.WithRate).
const (
	NotShared    Sharing = ""
	SharedMemory Sharing = "memory"
	SharedRedis  Sharing = "redis"
)

// String names s as the command prints it: "none", "memory" or "redis".
func (s Sharing) String() string {
	if s == NotShared {
		return "none"
	}
	return string(s)
}

// OutageKind is what is done to the Redis server in an outage.
type OutageKind string

// The kinds of outage: none; the server killed (SIGKILL), as a crash or
// an OOM kill would, then started again on the same port, empty; the
// server stopped (SIGSTOP: it accepts connections and answers nothing),
// then resumed (SIGCONT).
const (
	NoOutage   OutageKind = ""
	OutageKill OutageKind = "kill"
	OutageStop OutageKind = "stop"
)

// Outage is an outage of the Redis server of a run whose clients share a
// limit through it: in the middle of the run, N ÷ Rate ÷ 2 after the
// common start, the server is killed or stopped, and For after that it is
// started again (on the same port) or resumed. Calls must not fail for it:
// each redislimit.Limiter then paces its client with its fallback.
type Outage struct {
	Kind OutageKind
	For  time.Duration
	// Server is the run's Redis, started by StartRedis: only a server of
	// the run's own can be killed and started again.
	Server *RedisServer
}

// checkSharing refuses a sharing that cannot be run, before anything is
// started: an unknown one; a setting with no limiter to share (off and
// userlimiter); SharedRedis without a URL redis.ParseURL reads; an outage
// but of the run's own Redis server.
func (cfg Config) checkSharing() error {
	switch cfg.Shared {
	case NotShared:
		if cfg.Outage.Kind != NoOutage {
			return errors.New("bulk: an outage of Redis needs clients that share a limit through Redis")
		}
		return nil
	case SharedMemory, SharedRedis:
	default:
		return fmt.Errorf("bulk: unknown sharing %q (want memory or redis)", string(cfg.Shared))
	}
	if cfg.Setting != Adaptive && cfg.Setting != Fixed {
		return fmt.Errorf("bulk: the setting %q has no limiter to share (want %s or %s)", cfg.Setting, Adaptive, Fixed)
	}
	if cfg.Shared == SharedMemory {
		if cfg.Outage.Kind != NoOutage {
			return errors.New("bulk: an outage of Redis needs clients that share a limit through Redis, not in memory")
		}
		return nil
	}
	if _, err := redis.ParseURL(cfg.RedisURL); err != nil {
		return fmt.Errorf("bulk: the Redis URL: %w", err)
	}
	switch cfg.Outage.Kind {
	case NoOutage:
		return nil
	case OutageKill, OutageStop:
	default:
		return fmt.Errorf("bulk: unknown outage %q (want kill or stop)", string(cfg.Outage.Kind))
	}
	switch {
	case cfg.Outage.For <= 0:
		return fmt.Errorf("bulk: an outage of %v: it must last", cfg.Outage.For)
	case cfg.Outage.Server == nil || cfg.Outage.Server.URL() != cfg.RedisURL:
		return errors.New("bulk: an outage needs the run's own redis-server (StartRedis), whose URL is the run's")
	}
	return nil
}

// SharedMargin is the share of the key's rate that a limiter shared by
// every client paces at under the fixed setting: one pace at exactly a
// sliding window's rate is refused whenever the network bunches two
// requests, and through Redis each refusal holds every client for its
// Retry-After (a whole second), so it keeps a small margin under the rate.
const SharedMargin = 0.98

// sharedLimiter is the one limiter that clients sharing in memory are
// given: the setting's, for the whole run.
func (cfg Config) sharedLimiter() convo.RateLimiter {
	if cfg.Setting == Fixed {
		return convo.FixedRate(SharedMargin * float64(cfg.Rate))
	}
	return convo.AdaptiveRate()
}

// runSharedInMemory runs cfg with cfg.Clients clients in this process,
// all given one limiter (sharedLimiter), the contacts split evenly between
// them as between the processes of RunFleet, all started together; it
// judges the run as RunFleet does. The clients are separate convo.Clients
// (each with its own connections, and its index in ClientHeader): only the
// limiter is shared, with its one pace and its one queue.
func runSharedInMemory(ctx context.Context, cfg Config) (Result, error) {
	k := cfg.clients()
	if cfg.N < k {
		return Result{}, fmt.Errorf("bulk: %d contacts cannot be shared between %d clients", cfg.N, k)
	}
	opts := []convo.Option{convo.WithRateLimiter(cfg.sharedLimiter())}
	if r := cfg.retries(); r >= 0 {
		opts = append(opts, convo.WithMaxRetries(r))
	}
	s, journalLimit := startFake(cfg)
	defer s.Close()

	type outcome struct {
		failed failures
		finish time.Duration
		err    error
	}
	outcomes := make([]outcome, k)
	var (
		wg    sync.WaitGroup
		start time.Time // written before begin closes
		begin = make(chan struct{})
	)
	shs := shares(cfg.N, k)
	for i, sh := range shs {
		c := s.Client(append(opts[:len(opts):len(opts)], convo.WithHeader(ClientHeader, strconv.Itoa(i)))...)
		todo := phones(sh[0], sh[1])
		wg.Go(func() {
			<-begin
			failed, err := createContacts(ctx, c, todo, cfg.Concurrency)
			outcomes[i] = outcome{failed: failed, finish: time.Since(start), err: err}
		})
	}
	start = time.Now()
	close(begin)
	wg.Wait()

	r := Result{Clients: make([]ClientResult, k)}
	var errs []error
	for i, o := range outcomes {
		errs = append(errs, o.err)
		r.Clients[i] = ClientResult{Calls: shs[i][1] - shs[i][0], Failed: o.failed.count, Errors: o.failed.errors, Finish: o.finish}
		r.Failed += o.failed.count
		r.Took = max(r.Took, o.finish)
	}
	if err := errors.Join(errs...); err != nil {
		return r, err
	}
	err := r.judgeClients(s, journalLimit, start)
	return r, err
}

// runName is a name of the limit of one run, for redislimit.WithName:
// fresh for each run, so that no run meets the pace, the hold or the
// learnt rate an earlier one left in Redis (which expire after the TTL).
func runName() string {
	return "bulkload-" + strings.ToLower(rand.Text())
}

// pingRedis fails, saying where, when the Redis at url does not answer
// PING: a run through a Redis that is not there would be paced by each
// client's fallback alone, and measure nothing shared.
func pingRedis(ctx context.Context, url string) error {
	opt, err := redis.ParseURL(url)
	if err != nil {
		return fmt.Errorf("bulk: the Redis URL: %w", err)
	}
	rdb := redis.NewClient(opt)
	defer func() { _ = rdb.Close() }()
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if err := rdb.Ping(ctx).Err(); err != nil {
		return fmt.Errorf("bulk: the Redis at %s does not answer PING: %w", opt.Addr, err)
	}
	return nil
}

// redisLimiter is a child's redislimit.Limiter: on the Redis at the spec's
// URL, for the API key key, named by the run's name, at the rate for
// the fixed setting (WithRate, SharedMargin of it) and learnt for the adaptive one; its
// records go to logTo, counted in events. release closes its Redis client.
func (s childSpec) redisLimiter(key string, logTo io.Writer, events *redisEvents) (lim convo.RateLimiter, release func(), err error) {
	opt, err := redis.ParseURL(s.RedisURL)
	if err != nil {
		return nil, nil, fmt.Errorf("the Redis URL: %w", err)
	}
	rdb := redis.NewClient(opt)
	opts := []redislimit.Option{redislimit.WithName(s.RedisName),
		redislimit.WithLogger(slog.New(eventHandler{events, slog.NewTextHandler(logTo, nil)}))}
	if s.Setting == Fixed {
		opts = append(opts, redislimit.WithRate(SharedMargin*float64(s.Rate)))
	}
	if s.RedisTimeout > 0 {
		opts = append(opts, redislimit.WithTimeout(s.RedisTimeout))
	}
	l, err := redislimit.New(rdb, key, opts...)
	if err != nil {
		_ = rdb.Close()
		return nil, nil, err
	}
	return l, func() { _ = rdb.Close() }, nil
}

// redisEvents counts what a redislimit.Limiter says of Redis: that it does
// not answer (the fallback paces from then on), and that it answers again.
type redisEvents struct {
	down, back atomic.Int64
}

// eventHandler counts the records of a redislimit.Limiter in events, by
// their messages, and passes each on to next.
type eventHandler struct {
	events *redisEvents
	next   slog.Handler
}

func (h eventHandler) Enabled(ctx context.Context, l slog.Level) bool { return h.next.Enabled(ctx, l) }

func (h eventHandler) Handle(ctx context.Context, r slog.Record) error {
	switch {
	case strings.Contains(r.Message, "does not answer"):
		h.events.down.Add(1)
	case strings.Contains(r.Message, "answers again"):
		h.events.back.Add(1)
	}
	return h.next.Handle(ctx, r)
}

func (h eventHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	return eventHandler{h.events, h.next.WithAttrs(attrs)}
}

func (h eventHandler) WithGroup(name string) slog.Handler {
	return eventHandler{h.events, h.next.WithGroup(name)}
}
