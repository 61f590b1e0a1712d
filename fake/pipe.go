package fake

import (
	"context"
	"errors"
	"net"
	"net/http"
	"sync"
)

// WithInMemoryNetwork serves the fake over in-memory connections instead of a
// loopback socket, so that it can run inside a testing/synctest bubble: there,
// time only moves when every goroutine is blocked on something the bubble
// controls, and a goroutine waiting on a real socket never is. Start the fake
// inside the bubble:
//
//	synctest.Test(t, func(t *testing.T) {
//		s := fake.New(t, fake.WithInMemoryNetwork())
//		c := s.Client() // a 30 s Retry-After now takes no real time
//		...
//	})
//
// On its default real clock, the fake then reads the bubble's clock, so a
// Retry-After, a backoff or the anomaly cache's expiry run in no real time,
// with no manual clock at all. The connections exist only between this
// server and the clients built by [Server.Client] or [Server.HTTPClient]:
// [Server.URL] keeps the usual form (its host, 127.0.0.1:0, is a placeholder
// on which nothing listens), so an http.Client of your own cannot reach the
// server. Every goroutine the server started ends with [Server.Close] (which
// [New] registers with t.Cleanup), as a synctest bubble requires.
func WithInMemoryNetwork() Option { return func(cfg *config) { cfg.inMemory = true } }

// inMemoryAddr is the placeholder address of an in-memory server: loopback
// (so that the SDK accepts plain http to it) on port 0, where no socket can
// listen, so that a client that bypasses the in-memory dialer fails at once.
const inMemoryAddr = "127.0.0.1:0"

// pipeNet is an in-memory network with one listener: each dial makes a
// net.Pipe and hands the server's end to Accept. Its channels are created by
// whoever starts the server, so inside a synctest bubble they belong to the
// bubble and waiting on them is durably blocking.
type pipeNet struct {
	conns     chan net.Conn
	done      chan struct{}
	closeOnce sync.Once

	srv       *http.Server
	transport *http.Transport
}

func startPipeNet(h http.Handler) *pipeNet {
	p := &pipeNet{conns: make(chan net.Conn), done: make(chan struct{})}
	p.srv = &http.Server{Handler: h}
	p.transport = &http.Transport{
		DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) { return p.dial(ctx) },
	}
	go func() { _ = p.srv.Serve(p) }()
	return p
}

func (p *pipeNet) dial(ctx context.Context) (net.Conn, error) {
	client, server := net.Pipe()
	select {
	case p.conns <- server:
		return client, nil
	case <-p.done:
	case <-ctx.Done():
	}
	client.Close()
	server.Close()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return nil, &net.OpError{Op: "dial", Net: "pipe", Err: errors.New("fake: in-memory server closed")}
}

// Accept implements net.Listener for the http.Server.
func (p *pipeNet) Accept() (net.Conn, error) {
	select {
	case c := <-p.conns:
		return c, nil
	case <-p.done:
		return nil, net.ErrClosed
	}
}

// Close implements net.Listener: no more dials are accepted.
func (p *pipeNet) Close() error {
	p.closeOnce.Do(func() { close(p.done) })
	return nil
}

// Addr implements net.Listener.
func (p *pipeNet) Addr() net.Addr { return pipeAddr{} }

// shutdown closes the listener, every server-side connection and the
// clients' idle connections, so that every goroutine of either side ends.
func (p *pipeNet) shutdown() {
	_ = p.srv.Close()
	p.transport.CloseIdleConnections()
}

type pipeAddr struct{}

func (pipeAddr) Network() string { return "pipe" }
func (pipeAddr) String() string  { return inMemoryAddr }
