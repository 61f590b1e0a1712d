package bulk

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
)

// ErrNoRedisServer is StartRedis's error when redis-server is not
// installed (not on PATH).
var ErrNoRedisServer = errors.New("redis-server is not installed (not on PATH)")

// redisReady is how long a redis-server started has to answer PING.
const redisReady = 10 * time.Second

// RedisServer is a redis-server of the run's own, on a free loopback port,
// without persistence: a run through it starts from an empty Redis, and an
// outage (Outage) may kill it and start it again on the same port.
type RedisServer struct {
	bin, addr string

	mu     sync.Mutex
	cmd    *exec.Cmd     // nil once killed
	exited chan struct{} // closed when cmd has exited
}

// StartRedis starts a redis-server on a free loopback port (--port N
// --bind 127.0.0.1 --save "" --appendonly no) and waits until it answers
// PING. Its error wraps ErrNoRedisServer when redis-server is not
// installed. Close stops it.
func StartRedis() (*RedisServer, error) {
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		return nil, fmt.Errorf("bulk: %w: %v", ErrNoRedisServer, err)
	}
	// The port is free when asked for, and may be taken before the server
	// binds it: a few tries.
	var errs []error
	for range 3 {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, fmt.Errorf("bulk: a free port for redis-server: %w", err)
		}
		addr := ln.Addr().String()
		_ = ln.Close()
		s := &RedisServer{bin: bin, addr: addr}
		if err := s.start(); err != nil {
			errs = append(errs, err)
			continue
		}
		return s, nil
	}
	return nil, errors.Join(errs...)
}

// URL is the server's URL, as redis.ParseURL reads it.
func (s *RedisServer) URL() string { return "redis://" + s.addr }

// Close stops the server, and waits for it to exit: SIGKILL, which ends a
// stopped server too, and loses nothing (it saves nothing). It may be
// called more than once.
func (s *RedisServer) Close() { s.kill() }

// start starts the server on its port and waits until it answers PING.
func (s *RedisServer) start() error {
	_, port, _ := net.SplitHostPort(s.addr)
	cmd := exec.Command(s.bin, "--port", port, "--bind", "127.0.0.1", "--save", "", "--appendonly", "no")
	out := &lockedCapped{}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("bulk: starting redis-server: %w", err)
	}
	exited := make(chan struct{})
	go func() {
		_ = cmd.Wait()
		close(exited)
	}()
	s.mu.Lock()
	s.cmd, s.exited = cmd, exited
	s.mu.Unlock()

	rdb := redis.NewClient(&redis.Options{Addr: s.addr, MaxRetries: -1, DialTimeout: 100 * time.Millisecond})
	defer func() { _ = rdb.Close() }()
	deadline := time.Now().Add(redisReady)
	for {
		select {
		case <-exited:
			s.kill()
			return fmt.Errorf("bulk: redis-server on %s exited as it started: %s", s.addr, out)
		default:
		}
		ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
		err := rdb.Ping(ctx).Err()
		cancel()
		if err == nil {
			return nil
		}
		if time.Now().After(deadline) {
			s.kill()
			return fmt.Errorf("bulk: redis-server on %s does not answer PING after %v: %w: %s", s.addr, redisReady, err, out)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// kill ends the server at once (SIGKILL), as a crash or an OOM kill would,
// and waits for it to exit.
func (s *RedisServer) kill() {
	s.mu.Lock()
	cmd, exited := s.cmd, s.exited
	s.cmd = nil
	s.mu.Unlock()
	if cmd == nil {
		return
	}
	_ = cmd.Process.Kill()
	<-exited
}

// pause stops (SIGSTOP) or resumes (SIGCONT) the server: stopped, it
// accepts connections and answers nothing.
func (s *RedisServer) pause(stop bool) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cmd == nil {
		return errors.New("bulk: redis-server is not running")
	}
	sig, err := stopSignal(stop)
	if err != nil {
		return err
	}
	if err := s.cmd.Process.Signal(sig); err != nil {
		return fmt.Errorf("bulk: signalling redis-server: %w", err)
	}
	return nil
}

// outage does kind to the server for d: kills it and starts it again on
// its port (which takes what its start takes beyond d), or stops it and
// resumes it.
func (s *RedisServer) outage(kind OutageKind, d time.Duration) error {
	began := time.Now()
	switch kind {
	case OutageKill:
		s.kill()
		time.Sleep(d - time.Since(began))
		if err := s.start(); err != nil {
			return fmt.Errorf("bulk: starting redis-server again after the outage: %w", err)
		}
		return nil
	case OutageStop:
		if err := s.pause(true); err != nil {
			return err
		}
		time.Sleep(d - time.Since(began))
		return s.pause(false)
	}
	return fmt.Errorf("bulk: unknown outage %q", string(kind))
}

// outageRun is an outage due at a moment of a run.
type outageRun struct {
	cancel chan struct{} // closed: not to begin any more
	done   chan struct{} // closed once over (or cancelled before it began)
	span   *OutageSpan
	err    error
}

// begin schedules the outage o at at, its span counted from start; nil
// when o is none. end must be called.
func (o Outage) begin(at, start time.Time) *outageRun {
	if o.Kind == NoOutage {
		return nil
	}
	r := &outageRun{cancel: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(r.done)
		t := time.NewTimer(time.Until(at))
		defer t.Stop()
		select {
		case <-r.cancel:
			return
		case <-t.C:
		}
		began := time.Since(start)
		r.err = o.Server.outage(o.Kind, o.For)
		r.span = &OutageSpan{Began: began, Ended: time.Since(start)}
	}()
	return r
}

// end cancels the outage if it has not begun, or waits until it is over
// (the server answers again), and tells when it was.
func (r *outageRun) end() (*OutageSpan, error) {
	if r == nil {
		return nil, nil
	}
	close(r.cancel)
	<-r.done
	return r.span, r.err
}

// lockedCapped is a capped safe for concurrent use: a server's output is
// copied into it while it may be quoted.
type lockedCapped struct {
	mu sync.Mutex
	c  capped
}

func (w *lockedCapped) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.c.Write(p)
}

func (w *lockedCapped) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return strings.TrimSpace(string(w.c.b))
}
