// Package bulk is the bulk benchmark of the client's rate limiting: it
// creates N contacts through convo.Parallel at a fixed concurrency against
// the fake limited by one of its three kinds of request limit, with one of
// the client's pacing settings, and judges the run from the fake's journal.
//
// The same run serves the real-time command (cmd/bulkload, over loopback
// TCP) and the virtual-time test of this package (in-memory connections in
// a testing/synctest bubble). A run of several clients on one key
// (RunFleet) starts each in a process of its own, over loopback TCP only.
// The clients of a run may share a limiter (Config.Shared): one of the
// SDK's, given to every client of this process (SharedMemory), or a
// redislimit.Limiter on one Redis in each process (SharedRedis).
package bulk

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"time"

	"golang.org/x/time/rate"

	convo "github.com/convoapi/convo-go"
	"github.com/convoapi/convo-go/fake"
)

// Kind is one kind of request limit the fake can be, at a rate per second.
type Kind struct {
	// Name is the kind's short name, as the command's -kinds flag takes it.
	Name string
	// Limit is the fake's option for a limit of perSecond requests a second.
	Limit func(perSecond int) fake.Option
}

// Kinds are the fake's three kinds of limit: a token bucket with a burst of
// 10, a fixed window of one second and a sliding window of one second.
var Kinds = []Kind{
	{"bucket", func(r int) fake.Option { return fake.WithRateLimit(float64(r), 10) }},
	{"fixed", func(r int) fake.Option { return fake.WithFixedWindowLimit(r, time.Second) }},
	{"sliding", func(r int) fake.Option { return fake.WithSlidingWindowLimit(r, time.Second) }},
}

// KindNamed returns the kind called name.
func KindNamed(name string) (Kind, bool) {
	for _, k := range Kinds {
		if k.Name == name {
			return k, true
		}
	}
	return Kind{}, false
}

// Rates are the benchmark's rates, with the contacts created at each: the
// run at 10/s creates 200, at 100/s 1,000, at 1,000/s 5,000.
var Rates = []struct{ Rate, N int }{{10, 200}, {100, 1000}, {1000, 5000}}

// DefaultN is the number of contacts the benchmark creates at perSecond;
// false for a rate that is not one of Rates.
func DefaultN(perSecond int) (int, bool) {
	for _, r := range Rates {
		if r.Rate == perSecond {
			return r.N, true
		}
	}
	return 0, false
}

// Setting is how the client paces its requests in a run.
type Setting string

// The settings: the client's default adaptive limiter; a fixed pace at the
// limit's rate; no client-side pacing (with a budget of 10 retries, since
// the default 3 cannot outlast 32 callers meeting a limit alone); and no
// client-side pacing under a user's golang.org/x/time/rate limiter (burst 1,
// at exactly the limit's rate) in WithMiddleware.
const (
	Adaptive    Setting = "adaptive"
	Fixed       Setting = "fixed"
	Off         Setting = "off"
	UserLimiter Setting = "userlimiter"
)

// Settings lists every setting, in the order the command runs them.
var Settings = []Setting{Adaptive, Fixed, Off, UserLimiter}

// offRetries is the retry budget of the Off setting unless one is given.
const offRetries = 10

// DefaultRetries is the retry budget a run of s uses when none is given:
// the client's default (-1 here), or 10 for Off.
func (s Setting) DefaultRetries() int {
	if s == Off {
		return offRetries
	}
	return -1
}

// clientOptions are the client options of s for a limit of perSecond, with a
// retry budget of retries (< 0: the client's default).
func (s Setting) clientOptions(perSecond, retries int) ([]convo.Option, error) {
	var opts []convo.Option
	switch s {
	case Adaptive:
	case Fixed:
		opts = append(opts, convo.WithRateLimiter(convo.FixedRate(float64(perSecond))))
	case Off:
		opts = append(opts, convo.WithRateLimiter(convo.NoRateLimiter()))
	case UserLimiter:
		opts = append(opts, convo.WithRateLimiter(convo.NoRateLimiter()), convo.WithMiddleware(userLimiter(perSecond)))
	default:
		return nil, fmt.Errorf("bulk: unknown setting %q", s)
	}
	if retries >= 0 {
		opts = append(opts, convo.WithMaxRetries(retries))
	}
	return opts, nil
}

// userLimiter is a caller's own pacing, as WithMiddleware allows it: every
// attempt (retries included) takes a token of an x/time/rate limiter with
// burst 1 at perSecond before it is sent.
func userLimiter(perSecond int) convo.Middleware {
	lim := rate.NewLimiter(rate.Limit(perSecond), 1)
	return func(req *http.Request, next convo.MiddlewareNext) (*http.Response, error) {
		if err := lim.Wait(req.Context()); err != nil {
			return nil, err
		}
		return next(req)
	}
}

// Config is one run.
type Config struct {
	Setting Setting
	Kind    Kind
	// Rate is the limit's rate, requests a second; N the contacts created.
	Rate, N int
	// Concurrency is Parallel's limit, each client's (the benchmark's is
	// 32 for one client, 8 for each of several).
	Concurrency int
	// Latency is the time each request takes on the wire, spent half before
	// the fake handles it and half before its answer leaves (the
	// benchmark's is 5 ms).
	Latency time.Duration
	// Retries is the client's retry budget; < 0: the setting's default
	// (see Setting.DefaultRetries).
	Retries int
	// Clients is how many clients share the fake's key, each in a process
	// of its own, with N split evenly between them (see RunFleet): the
	// service's limit is the account's, whatever number of replicas or
	// workers use it. 0 or 1: one client, in this process, as the
	// benchmark has always run, so that its figures stay comparable.
	// With Shared, the clients share a limiter (in this process for
	// SharedMemory, whatever their number).
	Clients int
	// Shared is how the clients share a limiter: not at all (NotShared,
	// each has its setting's own); SharedMemory, one limiter of the
	// setting's given to every client, all in this process; SharedRedis,
	// a redislimit.Limiter in each client's process, on the Redis at
	// RedisURL. Only the adaptive and fixed settings have a limiter to
	// share.
	Shared Sharing
	// RedisURL is the Redis of SharedRedis, as redis.ParseURL reads it
	// (redis://host:port or redis://host:port/db).
	RedisURL string
	// RedisTimeout is each redislimit.Limiter's WithTimeout; 0: the
	// package's default (redislimit.DefaultTimeout).
	RedisTimeout time.Duration
	// Outage, with SharedRedis, is done to the Redis server in the middle
	// of the run (see Outage); none when its Kind is empty.
	Outage Outage
	// InMemory serves the fake over in-memory connections, for a run
	// inside a testing/synctest bubble; otherwise over loopback TCP, reached
	// with the client's default transport.
	InMemory bool
}

// Ideal is N ÷ Rate: the least time the limit allows for the run.
func (c Config) Ideal() time.Duration {
	return time.Duration(float64(c.N) / float64(c.Rate) * float64(time.Second))
}

// retries is the run's retry budget, resolved against the setting.
func (c Config) retries() int {
	if c.Retries < 0 {
		return c.Setting.DefaultRetries()
	}
	return c.Retries
}

// channelID is the fake's chat line the contacts are created on.
const channelID = "5511940000001"

// Run creates cfg.N contacts through convo.Parallel against a fresh fake
// limited by cfg.Kind at cfg.Rate and judges the run from its journal. An
// error means the run could not be judged (the journal overflowed, or the
// run failed other than call by call); calls that fail are counted in the
// Result. With cfg.Clients > 1, or with a limiter shared through Redis,
// the contacts are created by that many clients in processes of their own
// (see RunFleet); with a limiter shared in memory, by that many clients in
// this process (see runSharedInMemory).
func Run(ctx context.Context, cfg Config) (Result, error) {
	if err := cfg.checkSharing(); err != nil {
		return Result{}, err
	}
	switch {
	case cfg.Shared == SharedMemory:
		return runSharedInMemory(ctx, cfg)
	case cfg.Shared == SharedRedis || cfg.severalClients():
		return RunFleet(ctx, cfg)
	}
	opts, err := cfg.Setting.clientOptions(cfg.Rate, cfg.retries())
	if err != nil {
		return Result{}, err
	}
	s, journalLimit := startFake(cfg)
	defer s.Close()
	c := s.Client(opts...) // over loopback: the client's default transport

	all := phones(0, cfg.N)
	start := time.Now()
	failed, err := createContacts(ctx, c, all, cfg.Concurrency)
	r := Result{Took: time.Since(start), Failed: failed.count}
	if err != nil {
		return r, err
	}
	if err := checkJournal(s, journalLimit); err != nil {
		return r, err
	}
	r.judge(s.RequestsMatching(http.MethodPost, contactsPath), start)
	r.Clients = []ClientResult{{Calls: cfg.N, Failed: r.Failed, Errors: failed.errors, Finish: r.Took,
		Requests: r.Requests, Refused: r.Refused}}
	return r, nil
}

// contactsPath is the route the run's calls take, as the journal names it.
const contactsPath = "/chatapp/contacts"

// startFake starts the fake of a run of cfg: limited by cfg.Kind at
// cfg.Rate, each request delayed by cfg.Latency, with a journal large
// enough to judge the run (journalLimit entries), and the chat line the
// contacts are created on.
func startFake(cfg Config) (s *fake.Server, journalLimit int) {
	// Room for every attempt a call may make: the journal must not drop the
	// run's first requests.
	journalLimit = cfg.N*(max(cfg.retries(), 3)+2) + 1000
	fopts := []fake.Option{cfg.Kind.Limit(cfg.Rate), fake.WithJournalLimit(journalLimit), fake.WithJournalBytes(1 << 32),
		fake.WithHandlerMiddleware(latency(cfg.Latency))}
	if cfg.InMemory {
		fopts = append(fopts, fake.WithInMemoryNetwork())
	}
	s = fake.NewServer(fopts...)
	s.Company().AddChannel(fake.ChannelAccount{Channel: convo.ChannelChatapp, ProviderIdentifier: channelID})
	return s, journalLimit
}

// judgeClients judges a run of several clients from the fake's journal,
// from the common start: the run's figures, and each client's.
func (r *Result) judgeClients(s *fake.Server, journalLimit int, start time.Time) error {
	if err := checkJournal(s, journalLimit); err != nil {
		return err
	}
	reqs := s.RequestsMatching(http.MethodPost, contactsPath)
	r.judge(reqs, start)
	countByClient(r.Clients, reqs)
	return nil
}

// checkJournal fails when the journal may have dropped requests of the
// run, which could then not be judged.
func checkJournal(s *fake.Server, journalLimit int) error {
	if n := len(s.Requests()); n >= journalLimit {
		return fmt.Errorf("bulk: the journal is full (%d requests): the run cannot be judged", n)
	}
	return nil
}

// phones are the phone numbers of contacts from to to-1: the same for a
// run of one client and for the shares of a run of several, so that both
// create the same contacts.
func phones(from, to int) []string {
	out := make([]string, 0, to-from)
	for i := from; i < to; i++ {
		out = append(out, fmt.Sprintf("55119%08d", i))
	}
	return out
}

// createContacts creates a contact for each phone through convo.Parallel,
// at most concurrency at a time, every call run whatever became of the
// others, and tells of the calls that failed. An error means the run
// failed other than call by call.
func createContacts(ctx context.Context, c *convo.Client, phones []string, concurrency int) (failures, error) {
	_, err := convo.Parallel(ctx, phones, func(ctx context.Context, phone string) (*convo.Confirmation, error) {
		return c.Contacts.Create(ctx, &convo.CreateContactParams{PhoneNumberID: channelID, PhoneNumber: phone, Name: "N"})
	}, convo.ParallelLimit(concurrency), convo.ParallelCollectAll())
	var f failures
	for _, e := range unjoin(err) {
		var itemErr *convo.ItemError
		if !errors.As(e, &itemErr) {
			return f, fmt.Errorf("bulk: the run failed: %w", e)
		}
		f.add(itemErr.Err)
	}
	return f, nil
}

// maxErrors is how many of its calls' errors a client tells: enough to see
// why calls failed, not a copy of every one.
const maxErrors = 3

// failures counts the calls of a client that failed, and keeps the first
// maxErrors different errors they returned (the client redacts the key
// from every error).
type failures struct {
	count  int
	errors []string
}

// add counts one failed call that returned err.
func (f *failures) add(err error) {
	f.count++
	if msg := err.Error(); len(f.errors) < maxErrors && !slices.Contains(f.errors, msg) {
		f.errors = append(f.errors, msg)
	}
}

// latency makes each request take d on the wire: half before the fake
// handles it and half after, before its answer (buffered by net/http until
// the handler returns) leaves. The journal's time of a request is thus when
// the fake decided it, as a limiter's would be.
func latency(d time.Duration) func(http.Handler) http.Handler {
	return func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			time.Sleep(d / 2)
			h.ServeHTTP(w, r)
			time.Sleep(d - d/2)
		})
	}
}

// unjoin lists the errors joined in err (Parallel's collect-all mode joins
// one per failed call).
func unjoin(err error) []error {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		return j.Unwrap()
	}
	if err != nil {
		return []error{err}
	}
	return nil
}
