package bulk

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	convo "github.com/convoapi/convo-go"
)

// A run of several clients (RunFleet) starts each client as a child
// process: the running binary again, told by ChildEnv that it is one. Each
// client thus has a process, a runtime and connections of its own, as the
// replicas or workers of a service that share one API key do. The
// protocol, over the child's standard streams:
//
//  1. The parent starts the child with ChildEnv holding the child's
//     childSpec (JSON) and childKeyEnv the API key. The key travels in the
//     environment only: never on a command line (which ps shows), in a
//     file or in any output.
//  2. The child builds its client and writes "ready" on a line of its
//     stdout.
//  3. Once every child is ready, the parent writes "start <t>" on each
//     child's stdin, t the common start in Unix nanoseconds, a moment
//     ahead so that every child has it in time; each child waits for t.
//  4. The child creates its share of the contacts and writes its
//     childReport as one JSON line on its stdout, then exits 0.
//
// A child that fails writes why on its stderr and exits 1. A child whose
// stdin ends before the start (its parent is gone) exits at once.

// ChildEnv is the environment variable that makes a process a client of a
// run of several (see IsChild); it holds the client's part of the run.
const ChildEnv = "BULKLOAD_CHILD"

// childKeyEnv is the environment variable that hands a child the API key.
const childKeyEnv = "BULKLOAD_API_KEY"

// The lines of the protocol that are not JSON.
const (
	readyLine = "ready"
	startWord = "start"
)

// childSpec is one client's part of a run of several, as its parent hands
// it over.
type childSpec struct {
	// Client is the client's index, 0 to K-1, sent in ClientHeader.
	Client  int    `json:"client"`
	BaseURL string `json:"base_url"`
	// Setting, Rate and Retries choose the client's options, as for a run
	// in one process (Setting.clientOptions).
	Setting Setting `json:"setting"`
	Rate    int     `json:"rate"`
	Retries int     `json:"retries"`
	// Shared is SharedRedis when the clients share a limit through Redis:
	// the client's limiter is then a redislimit.Limiter on the Redis at
	// RedisURL, for the limit named RedisName (fresh for each run), with
	// RedisTimeout (0: the package's default), at Rate for the fixed
	// setting and learnt for the adaptive one (see childSpec.redisLimiter).
	Shared       Sharing       `json:"shared,omitempty"`
	RedisURL     string        `json:"redis_url,omitempty"`
	RedisName    string        `json:"redis_name,omitempty"`
	RedisTimeout time.Duration `json:"redis_timeout,omitempty"`
	// From and To bound the client's share of the contacts: phones(From, To).
	From        int `json:"from"`
	To          int `json:"to"`
	Concurrency int `json:"concurrency"`
	// Deadline ends the client's calls, which then fail, if the run wedges:
	// the child still reports, a little before its parent gives up on it.
	Deadline time.Time `json:"deadline,omitzero"`
}

// childReport is what a child tells of its run: its calls, those that
// failed and the first few of their errors, and when its last call ended,
// in seconds from the common start; with a limit shared through Redis, how
// many times its limiter said Redis did not answer, and answered again.
type childReport struct {
	Client    int      `json:"client"`
	Calls     int      `json:"calls"`
	Failed    int      `json:"failed"`
	Errors    []string `json:"errors,omitempty"`
	Seconds   float64  `json:"seconds"`
	RedisDown int      `json:"redis_down,omitempty"`
	RedisBack int      `json:"redis_back,omitempty"`
}

// IsChild reports whether this process was started as a client of a run
// of several. A binary that runs RunFleet must check it first thing in
// main (and a test binary in TestMain), and then call ChildMain.
func IsChild() bool { return os.Getenv(ChildEnv) != "" }

// ChildMain runs this process as the client of a run of several that
// ChildEnv describes, over its standard streams, and returns its exit
// code: 0, or 1 after writing why on stderr.
func ChildMain() int {
	key := os.Getenv(childKeyEnv)
	// Nothing this process might start inherits the key.
	_ = os.Unsetenv(childKeyEnv)
	if err := runChild(os.Getenv(ChildEnv), key, os.Stdin, os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "bulk client:", err)
		return 1
	}
	return 0
}

// runChild is the child's side of the protocol: spec is its childSpec in
// JSON, key the API key. What a limiter shared through Redis logs goes to
// stderr.
func runChild(spec, key string, stdin io.Reader, stdout, stderr io.Writer) error {
	var s childSpec
	if err := json.Unmarshal([]byte(spec), &s); err != nil {
		return fmt.Errorf("%s: %w", ChildEnv, err)
	}
	var events redisEvents
	c, closeClient, err := s.client(key, stderr, &events)
	if err != nil {
		return err
	}
	defer closeClient()
	todo := phones(s.From, s.To)
	if _, err := fmt.Fprintln(stdout, readyLine); err != nil {
		return err
	}
	start, err := awaitStart(stdin)
	if err != nil {
		return err
	}
	ctx := context.Background()
	if !s.Deadline.IsZero() {
		var cancel context.CancelFunc
		ctx, cancel = context.WithDeadline(ctx, s.Deadline)
		defer cancel()
	}
	time.Sleep(time.Until(start))
	failed, err := createContacts(ctx, c, todo, s.Concurrency)
	// start has no monotonic reading: this is wall time, which every
	// process of the machine shares.
	finish := time.Since(start)
	if err != nil {
		return err
	}
	return json.NewEncoder(stdout).Encode(childReport{Client: s.Client, Calls: len(todo), Failed: failed.count,
		Errors: failed.errors, Seconds: finish.Seconds(), RedisDown: int(events.down.Load()), RedisBack: int(events.back.Load())})
}

// client is the child's own default client: the fake's URL and key, its
// index in ClientHeader, and its setting's options; with a limit shared
// through Redis, its redislimit.Limiter instead of the setting's limiter
// (logging to logTo, counted in events). release releases what the client
// holds (its Redis client).
func (s childSpec) client(key string, logTo io.Writer, events *redisEvents) (c *convo.Client, release func(), err error) {
	opts, err := s.Setting.clientOptions(s.Rate, s.Retries)
	if err != nil {
		return nil, nil, err
	}
	release = func() {}
	switch s.Shared {
	case NotShared:
	case SharedRedis:
		if s.Setting != Adaptive && s.Setting != Fixed {
			return nil, nil, fmt.Errorf("the setting %q has no limiter to share", s.Setting)
		}
		lim, closeRedis, err := s.redisLimiter(key, logTo, events)
		if err != nil {
			return nil, nil, err
		}
		release = closeRedis
		opts = []convo.Option{convo.WithRateLimiter(lim)}
		if s.Retries >= 0 {
			opts = append(opts, convo.WithMaxRetries(s.Retries))
		}
	default:
		return nil, nil, fmt.Errorf("a client of its own process cannot share a limiter by %q", string(s.Shared))
	}
	base := []convo.Option{convo.WithBaseURL(s.BaseURL), convo.WithAPIKey(key),
		convo.WithHeader(ClientHeader, strconv.Itoa(s.Client))}
	c, err = convo.NewClient(append(base, opts...)...)
	if err != nil {
		release()
		return nil, nil, err
	}
	return c, release, nil
}

// awaitStart reads the parent's start line from stdin and returns the
// common start it gives.
func awaitStart(stdin io.Reader) (time.Time, error) {
	sc := bufio.NewScanner(stdin)
	if !sc.Scan() {
		if err := sc.Err(); err != nil {
			return time.Time{}, err
		}
		return time.Time{}, errors.New("stdin ended before the start: the parent is gone")
	}
	word, ns, _ := strings.Cut(sc.Text(), " ")
	t, err := strconv.ParseInt(ns, 10, 64)
	if word != startWord || err != nil {
		return time.Time{}, fmt.Errorf("want %q and a time on stdin, got %q", startWord, sc.Text())
	}
	return time.Unix(0, t), nil
}
