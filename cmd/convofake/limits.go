package main

import (
	"errors"
	"flag"
	"io"
	"log/slog"
	"net"
	"net/http"
	"path"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Defaults of the limits that keep a slow or crowding client from holding
// the server.
const (
	defaultReadTimeout   = 30 * time.Second
	maxHeaderTimeout     = 10 * time.Second
	defaultMaxConns      = 512
	defaultShutdownGrace = 5 * time.Second
)

// serverLimits are the flags that bound what a client can hold.
type serverLimits struct {
	readTimeout   time.Duration // headers and body of one request; also the idle keep-alive time
	maxConns      int           // connections served at once per listener; 0: no cap
	shutdownGrace time.Duration // how long requests in flight may finish at shutdown
}

// declareServerFlags declares --read-timeout, --max-conns and
// --shutdown-grace.
func declareServerFlags(fs *flag.FlagSet, l *serverLimits) {
	fs.DurationVar(&l.readTimeout, "read-timeout", defaultReadTimeout,
		"the longest a client may take to send one request, headers and body, a `DURATION` (default 30s; headers alone: at most 10s); "+
			"a silent or trickling client's connection is closed after it. An idle keep-alive connection is closed after it too")
	fs.IntVar(&l.maxConns, "max-conns", defaultMaxConns,
		"connections served at once on each listener, `N` (default "+strconv.Itoa(defaultMaxConns)+"); one more is closed at once, unanswered. 0: no cap")
	fs.DurationVar(&l.shutdownGrace, "shutdown-grace", defaultShutdownGrace,
		"on SIGINT or SIGTERM, how long requests in flight may finish, a `DURATION` (default 5s); those still running then are cut and the exit code is 3")
}

func (l *serverLimits) validate() error {
	switch {
	case l.readTimeout <= 0:
		return errors.New("--read-timeout: must be > 0")
	case l.maxConns < 0:
		return errors.New("--max-conns: must be ≥ 0 (0: no cap)")
	case l.shutdownGrace < 0:
		return errors.New("--shutdown-grace: must be ≥ 0")
	}
	return nil
}

// newServer is the http.Server of one listener. Headers must arrive within
// min(10 s, --read-timeout) and the whole request within --read-timeout;
// there is no write timeout, so that a latency fault can hold an answer.
// OPTIONS * reaches h (which answers it with an envelope) instead of Go's
// bare 200.
func (l *serverLimits) newServer(h http.Handler, logger *slog.Logger) *http.Server {
	return &http.Server{
		Handler:                      h,
		ReadHeaderTimeout:            min(maxHeaderTimeout, l.readTimeout),
		ReadTimeout:                  l.readTimeout,
		IdleTimeout:                  l.readTimeout,
		MaxHeaderBytes:               64 << 10,
		DisableGeneralOptionsHandler: true,
		ErrorLog:                     slog.NewLogLogger(logger.Handler(), slog.LevelWarn),
	}
}

// capConns caps the connections ln hands out at once to n (none when n is
// 0): one accepted beyond the cap is closed at once, so that it neither
// waits in the backlog nor holds memory.
func capConns(ln net.Listener, n int, logger *slog.Logger) net.Listener {
	if n == 0 {
		return ln
	}
	return &cappedListener{Listener: ln, slots: make(chan struct{}, n), logger: logger}
}

type cappedListener struct {
	net.Listener
	slots    chan struct{}
	logger   *slog.Logger
	lastWarn atomic.Int64 // unix second of the last warning
}

func (l *cappedListener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		select {
		case l.slots <- struct{}{}:
			return &slotConn{Conn: c, release: sync.OnceFunc(func() { <-l.slots })}, nil
		default:
			_ = c.Close()
			if now := time.Now().Unix(); l.lastWarn.Swap(now) != now { // at most one line a second
				l.logger.Warn("connection closed: --max-conns reached", "max_conns", cap(l.slots), "addr", l.Addr().String())
			}
		}
	}
}

// slotConn gives its slot back when closed.
type slotConn struct {
	net.Conn
	release func()
}

func (c *slotConn) Close() error {
	err := c.Conn.Close()
	c.release()
	return err
}

// inFlight counts the requests being handled, so that a shutdown can tell
// whether it cut any.
type inFlight struct{ n atomic.Int64 }

func (f *inFlight) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f.n.Add(1)
		defer f.n.Add(-1)
		next.ServeHTTP(w, r)
	})
}

// isCleanPath reports whether p is in the form Go's ServeMux routes without
// a redirect: rooted, with no "." or ".." element and no "//".
func isCleanPath(p string) bool {
	if p == "" || p[0] != '/' {
		return false
	}
	c := path.Clean(p)
	return c == p || (strings.HasSuffix(p, "/") && c+"/" == p)
}

// closeUnread answers "Connection: close" when the handler answers before it
// has read the request's body to its end (a 401 or a 429 answered before
// the body is looked at, a body over the limit), so that the answer leaves
// at once and the connection then closes, instead of Go's server first
// reading what is left of the body (which a client that sends none would
// make it wait for until --read-timeout).
func closeUnread(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Body == nil || r.Body == http.NoBody {
			next.ServeHTTP(w, r)
			return
		}
		body := &watchedBody{ReadCloser: r.Body}
		r.Body = body
		cw := &closeIfUnread{ResponseWriter: w, body: body}
		next.ServeHTTP(cw, r)
		if !cw.wrote && !body.eof {
			// Go's server writes 200 after the handler (unless the handler
			// took the connection over, as a drop fault does).
			w.Header().Set("Connection", "close")
			cw.closing = true
		}
		if cw.closing {
			// Go's server reads what is left of the body before it closes
			// the connection: make that read end at once. (An error here
			// means the handler took the connection over: nothing to do.)
			_ = http.NewResponseController(w).SetReadDeadline(time.Now())
		}
	})
}

// watchedBody records whether its end was read.
type watchedBody struct {
	io.ReadCloser
	eof bool
}

func (b *watchedBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err == io.EOF {
		b.eof = true
	}
	return n, err
}

type closeIfUnread struct {
	http.ResponseWriter
	body    *watchedBody
	wrote   bool
	closing bool // it answered "Connection: close"
}

func (w *closeIfUnread) WriteHeader(code int) {
	if !w.wrote && !w.body.eof && code >= http.StatusOK {
		w.Header().Set("Connection", "close")
		w.closing = true
	}
	w.wrote = w.wrote || code >= http.StatusOK
	w.ResponseWriter.WriteHeader(code)
}

func (w *closeIfUnread) Write(p []byte) (int, error) {
	if !w.wrote {
		w.WriteHeader(http.StatusOK)
	}
	return w.ResponseWriter.Write(p)
}

// Unwrap lets http.ResponseController reach the connection (a drop fault
// hijacks it).
func (w *closeIfUnread) Unwrap() http.ResponseWriter { return w.ResponseWriter }
