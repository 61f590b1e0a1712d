package bulk

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"time"
)

// startLead is how far ahead of the parent's start line the common start
// is: long enough for every child to read the line, even on a busy
// machine, so that none starts late.
const startLead = 100 * time.Millisecond

// childGrace is how long before the run's deadline a child ends its calls,
// so that it still reports before its parent gives up on it.
const childGrace = time.Second

// RunFleet runs cfg with cfg.Clients clients on the fake's one key, each in
// a process of its own (see ChildEnv), the contacts split evenly between
// them, all started together; it judges the run from the fake's journal as
// Run does, with each client's figures. The running binary must call
// ChildMain first thing when IsChild, as cmd/bulkload's main does, and as
// the TestMain of a test that runs it must.
//
// With cfg.Shared SharedRedis, each client paces by a redislimit.Limiter
// on the Redis at cfg.RedisURL (which must answer PING first), all of them
// on one limit named afresh for the run; cfg.Outage, if any, is done to
// that Redis N ÷ Rate ÷ 2 after the common start, and the run ends only
// once it is over.
func RunFleet(ctx context.Context, cfg Config) (Result, error) {
	if err := cfg.checkFleet(); err != nil {
		return Result{}, err
	}
	exe, err := os.Executable()
	if err != nil {
		return Result{}, fmt.Errorf("bulk: the binary to start the clients from: %w", err)
	}
	var name string
	if cfg.Shared == SharedRedis {
		if err := pingRedis(ctx, cfg.RedisURL); err != nil {
			return Result{}, err
		}
		name = runName()
	}
	s, journalLimit := startFake(cfg)
	defer s.Close()
	f, err := startChildren(ctx, exe, cfg.childSpecs(s.URL(), childDeadline(ctx), name), s.APIKey())
	if err != nil {
		return Result{}, err
	}
	defer f.stop()
	start, err := f.start()
	if err != nil {
		return Result{}, f.fail(err)
	}
	outage := cfg.Outage.begin(start.Add(cfg.Ideal()/2), start)
	reports, err := f.reports()
	span, outageErr := outage.end()
	if err != nil {
		return Result{}, f.fail(err)
	}
	if outageErr != nil {
		return Result{}, outageErr
	}
	r := resultOf(reports)
	r.Outage = span
	err = r.judgeClients(s, journalLimit, start)
	return r, err
}

// checkFleet refuses a run of several clients that cannot be run: one
// served in memory (another process cannot reach it), fewer contacts than
// clients, an unknown setting, a limiter shared in memory (which is not
// run in processes of their own), or a sharing that cannot be (see
// checkSharing); before any process is started.
func (cfg Config) checkFleet() error {
	switch {
	case cfg.InMemory:
		return errors.New("bulk: clients in processes of their own cannot reach a fake served in memory")
	case cfg.N < cfg.clients():
		return fmt.Errorf("bulk: %d contacts cannot be shared between %d clients", cfg.N, cfg.clients())
	case cfg.Shared == SharedMemory:
		return errors.New("bulk: clients that share a limiter in memory run in this process (Run), not in processes of their own")
	}
	if _, err := cfg.Setting.clientOptions(cfg.Rate, cfg.retries()); err != nil {
		return err
	}
	return cfg.checkSharing()
}

// shares splits n contacts between k clients: k consecutive ranges
// [from, to) whose sizes differ by one at most, the larger first.
func shares(n, k int) [][2]int {
	out := make([][2]int, k)
	from := 0
	for i := range out {
		size := n / k
		if i < n%k {
			size++
		}
		out[i] = [2]int{from, from + size}
		from += size
	}
	return out
}

// childDeadline is when the children's calls end: childGrace before ctx's
// deadline; zero (never) when ctx has none.
func childDeadline(ctx context.Context) time.Time {
	if d, ok := ctx.Deadline(); ok {
		return d.Add(-childGrace)
	}
	return time.Time{}
}

// childSpecs are the parts of cfg's clients, against the fake at baseURL,
// their calls ending at deadline (zero: never); with a limit shared through
// Redis, the limit's name is redisName.
func (cfg Config) childSpecs(baseURL string, deadline time.Time, redisName string) []childSpec {
	var specs []childSpec
	for i, sh := range shares(cfg.N, cfg.clients()) {
		spec := childSpec{Client: i, BaseURL: baseURL, Setting: cfg.Setting, Rate: cfg.Rate,
			Retries: cfg.retries(), From: sh[0], To: sh[1], Concurrency: cfg.Concurrency, Deadline: deadline}
		if cfg.Shared == SharedRedis {
			spec.Shared, spec.RedisURL, spec.RedisName, spec.RedisTimeout = SharedRedis, cfg.RedisURL, redisName, cfg.RedisTimeout
		}
		specs = append(specs, spec)
	}
	return specs
}

// resultOf gathers the children's reports: each client's calls, failures
// and finish; the run's failures, and its time, that of the last client to
// finish.
func resultOf(reports []childReport) Result {
	r := Result{Clients: make([]ClientResult, len(reports))}
	for i, rep := range reports {
		finish := time.Duration(rep.Seconds * float64(time.Second))
		r.Clients[i] = ClientResult{Calls: rep.Calls, Failed: rep.Failed, Errors: rep.Errors, Finish: finish,
			RedisDown: rep.RedisDown, RedisBack: rep.RedisBack}
		r.Failed += rep.Failed
		r.Took = max(r.Took, finish)
	}
	return r
}

// fleet is the child processes of a run of several clients.
type fleet struct {
	cancel   context.CancelFunc // kills the children that have not exited
	children []*child
	waited   bool // every child has been waited for
}

// child is one child process and its standard streams.
type child struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stdout *bufio.Scanner
	stderr *capped
}

// startChildren starts a child of the binary exe for each of specs, with
// the API key in its environment. Each is killed when ctx ends.
func startChildren(ctx context.Context, exe string, specs []childSpec, key string) (*fleet, error) {
	ctx, cancel := context.WithCancel(ctx)
	f := &fleet{cancel: cancel}
	for _, spec := range specs {
		c, err := startChild(ctx, exe, spec, key)
		if err != nil {
			f.stop()
			return nil, fmt.Errorf("bulk: starting client %d: %w", spec.Client, err)
		}
		f.children = append(f.children, c)
	}
	return f, nil
}

// startChild starts one child of exe for spec.
func startChild(ctx context.Context, exe string, spec childSpec, key string) (*child, error) {
	js, err := json.Marshal(spec)
	if err != nil {
		return nil, err
	}
	cmd := exec.CommandContext(ctx, exe)
	cmd.Env = append(os.Environ(), ChildEnv+"="+string(js), childKeyEnv+"="+key)
	cmd.WaitDelay = 5 * time.Second // a killed child's streams close within it
	c := &child{cmd: cmd, stderr: &capped{}}
	cmd.Stderr = c.stderr
	if c.stdin, err = cmd.StdinPipe(); err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	c.stdout = bufio.NewScanner(stdout)
	return c, cmd.Start()
}

// start waits until every child is ready, then gives them all the common
// start, startLead ahead, which it returns.
func (f *fleet) start() (time.Time, error) {
	for i, c := range f.children {
		line, err := c.line()
		if err != nil {
			return time.Time{}, fmt.Errorf("bulk: client %d did not get ready: %w", i, err)
		}
		if line != readyLine {
			return time.Time{}, fmt.Errorf("bulk: client %d said %q, not %q", i, line, readyLine)
		}
	}
	start := time.Now().Add(startLead)
	for i, c := range f.children {
		_, err := fmt.Fprintf(c.stdin, "%s %d\n", startWord, start.UnixNano())
		if err = errors.Join(err, c.stdin.Close()); err != nil {
			return time.Time{}, fmt.Errorf("bulk: starting client %d: %w", i, err)
		}
	}
	return start, nil
}

// reports reads each child's report, in the order of the clients, and
// waits for every child to exit.
func (f *fleet) reports() ([]childReport, error) {
	reports := make([]childReport, len(f.children))
	for i, c := range f.children {
		line, err := c.line()
		if err != nil {
			return nil, fmt.Errorf("bulk: client %d did not report: %w", i, err)
		}
		if err := json.Unmarshal([]byte(line), &reports[i]); err != nil || reports[i].Client != i {
			return nil, fmt.Errorf("bulk: client %d reported %q", i, line)
		}
	}
	if err := f.wait(); err != nil {
		return nil, err
	}
	return reports, nil
}

// wait waits for every child to exit, once, and says which did not exit
// well.
func (f *fleet) wait() error {
	if f.waited {
		return nil
	}
	f.waited = true
	var errs []error
	for i, c := range f.children {
		_ = c.stdin.Close() // a child not yet started sees its parent gone
		if err := c.cmd.Wait(); err != nil {
			errs = append(errs, fmt.Errorf("bulk: client %d: %w", i, err))
		}
	}
	return errors.Join(errs...)
}

// line reads the child's next line of stdout.
func (c *child) line() (string, error) {
	if c.stdout.Scan() {
		return c.stdout.Text(), nil
	}
	if err := c.stdout.Err(); err != nil {
		return "", err
	}
	return "", io.ErrUnexpectedEOF
}

// stop kills the children that have not exited and waits for them all. It
// may be called more than once.
func (f *fleet) stop() {
	f.cancel()
	_ = f.wait()
}

// fail stops the children and returns err with what they wrote on their
// stderr, which says why a child failed.
func (f *fleet) fail(err error) error {
	f.stop()
	var b strings.Builder
	for i, c := range f.children {
		if s := strings.TrimSpace(string(c.stderr.b)); s != "" {
			fmt.Fprintf(&b, "\n  client %d: %s", i, s)
		}
	}
	return fmt.Errorf("%w%s", err, b.String())
}

// stderrMax is the most of a child's stderr kept to quote.
const stderrMax = 4 << 10

// capped keeps the first stderrMax bytes written to it. It is read once
// its child has been waited for, when nothing writes to it any more.
type capped struct{ b []byte }

// Write keeps what fits of p and drops the rest: a child that writes much
// must not fill the parent's memory.
func (w *capped) Write(p []byte) (int, error) {
	w.b = append(w.b, p[:min(len(p), stderrMax-len(w.b))]...)
	return len(p), nil
}
