package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/convoapi/convo-go/internal/testkit"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// slowRequest opens a connection to addr and sends the headers of a POST
// announcing a 1000-byte body, and no body.
func slowRequest(t *testing.T, addr, auth string, headers ...string) net.Conn {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })
	if auth != "" {
		headers = append(headers, "Authorization: "+auth)
	}
	extra := ""
	for _, h := range headers {
		extra += h + "\r\n"
	}
	_, err = fmt.Fprintf(c, "POST /v1/chatapp/contacts HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n%s\r\n", extra)
	require.NoError(t, err)
	return c
}

// readUntilClosed reads c until the server closes it (or the safety timeout
// passes) and returns what it read and whether the server closed it.
func readUntilClosed(c net.Conn) (string, bool) {
	_ = c.SetReadDeadline(time.Now().Add(safetyTimeout))
	b, err := io.ReadAll(c)
	var ne net.Error
	timedOut := errors.As(err, &ne) && ne.Timeout()
	return string(b), !timedOut
}

// Clients that send headers and no body are answered (400: the body never
// came) and dropped after --read-timeout.
func TestSlowClientsAreDroppedAfterTheReadTimeout(t *testing.T) {
	p := start(t, "--read-timeout", "300ms", "--rate-limit", "0")
	began := time.Now()
	var held []net.Conn
	for range 20 {
		held = append(held, slowRequest(t, p.addr, "Bearer fake-api-key"))
	}
	for _, c := range held {
		got, closed := readUntilClosed(c)
		assert.True(t, closed, "dropped after --read-timeout")
		assert.True(t, strings.HasPrefix(got, "HTTP/1.1 400 "), "%q", got)
		assert.Contains(t, got, `"INVALID_PARAM"`)
	}
	// Generous: the bound says "after the read timeout, not never", not how
	// fast the machine is.
	assert.Less(t, time.Since(began), 10*time.Second)
}

// A connection beyond --max-conns is closed at once, unanswered; once the
// connections served close, their slots serve again.
func TestConnectionsBeyondTheCapAreClosed(t *testing.T) {
	p := start(t, "--read-timeout", "1h", "--max-conns", "2")
	held := []net.Conn{inHandler(t, p.addr), inHandler(t, p.addr)}
	got, closed := readUntilClosed(slowRequest(t, p.addr, "Bearer fake-api-key"))
	assert.True(t, closed, "the connection over the cap is closed")
	assert.Empty(t, got, "closed unanswered")

	for _, c := range held {
		require.NoError(t, c.Close())
	}
	// The server frees a slot when it sees the close: try until it has.
	deadline := time.Now().Add(safetyTimeout)
	for {
		c := slowRequest(t, p.addr, "")
		got, _ := readUntilClosed(c)
		if strings.HasPrefix(got, "HTTP/1.1 401 ") || time.Now().After(deadline) {
			assert.True(t, strings.HasPrefix(got, "HTTP/1.1 401 "), "served again: %q", got)
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// inHandler opens a request whose handler is running: it waits for the
// body, which never comes. Go's server sends "100 Continue" when the
// handler starts reading the body: that is the sign.
func inHandler(t *testing.T, addr string) net.Conn {
	t.Helper()
	c := slowRequest(t, addr, "Bearer fake-api-key", "Expect: 100-continue")
	_ = c.SetReadDeadline(time.Now().Add(safetyTimeout))
	line, err := bufio.NewReader(c).ReadString('\n')
	require.NoError(t, err)
	require.Equal(t, "HTTP/1.1 100 Continue\r\n", line)
	return c
}

// A request answered before its body is read (here a 401) leaves at once
// and its connection closes, instead of waiting for a body that never
// comes until --read-timeout.
func TestAnAnswerBeforeTheBodyClosesTheConnectionAtOnce(t *testing.T) {
	p := start(t, "--read-timeout", "1h")
	for _, auth := range []string{"", "Bearer wrong-key"} {
		got, closed := readUntilClosed(slowRequest(t, p.addr, auth))
		assert.True(t, closed, "closed long before --read-timeout")
		assert.True(t, strings.HasPrefix(got, "HTTP/1.1 401 "), "%q", got)
		assert.Contains(t, got, "Connection: close\r\n")
	}
	// A request whose body is read keeps its connection.
	r := p.do(http.MethodPost, "/v1/chatapp/contacts", "Bearer fake-api-key", `{}`)
	assert.Equal(t, http.StatusBadRequest, r.Status)
	assert.Empty(t, r.Header.Get("Connection"))
}

// convofake answers everything itself, in an envelope: no redirect (Go's
// ServeMux would send 307 for a path with "." or "//"), no bare 200 for
// OPTIONS *.
func TestNoRedirectsNoBareAnswers(t *testing.T) {
	p := start(t)
	for _, path := range []string{"/_fake/./companies", "/_fake//companies", "/_fake/../v1/channels", "/_fake/requests/../clock"} {
		r := p.raw("GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer " + testAdminToken + "\r\n\r\n")
		assertAdminError(t, r, http.StatusNotFound, "not_found")
		assert.Contains(t, r.JSON(t)["message"], "does not redirect")
	}
	for _, line := range []string{"GET /v1/./channels", "GET /v1//channels", "OPTIONS *"} {
		r := p.raw(line + " HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer fake-api-key\r\n\r\n")
		assert.Equal(t, http.StatusNotFound, r.Status, line)
		assert.Equal(t, false, r.JSON(t)["success"], line)
		assert.Equal(t, "NOT_FOUND", r.JSON(t)["message"].(map[string]any)["error"], line)
	}
}

// raw sends request as written (Go's client would neither send OPTIONS *
// nor keep "." in a path) and reads the answer.
func (p *proc) raw(request string) response {
	p.t.Helper()
	c, err := net.Dial("tcp", p.addr)
	require.NoError(p.t, err)
	defer c.Close()
	_, err = io.WriteString(c, request)
	require.NoError(p.t, err)
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	require.NoError(p.t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(p.t, err)
	return response{Status: resp.StatusCode, Header: resp.Header, Body: b}
}

// SIGTERM (the context's end) with a request still running: convofake
// waits --shutdown-grace, cuts it, says so and exits 3.
func TestShutdownCutsWhatOutlivesTheGraceAndExits3(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var stdout, stderr testkit.Buffer
	ready, done := make(chan string, 1), make(chan int, 1)
	go func() {
		done <- run(ctx, []string{"--addr", "127.0.0.1:0", "--read-timeout", "1h", "--shutdown-grace", "200ms"},
			&stdout, &stderr, func(addr string) { ready <- addr })
	}()
	addr := <-ready
	var held []net.Conn
	for range 5 {
		held = append(held, inHandler(t, addr))
	}

	began := time.Now()
	cancel()
	select {
	case code := <-done:
		assert.Equal(t, exitCut, code)
	case <-time.After(safetyTimeout):
		t.Fatal("convofake did not stop")
	}
	assert.Less(t, time.Since(began), 10*time.Second, "the grace, not --read-timeout")
	assert.Contains(t, stderr.String(), "requests still running were cut")
	assert.Contains(t, stderr.String(), "cut=5")
	for _, c := range held {
		_, closed := readUntilClosed(c)
		assert.True(t, closed)
	}
}

// The server's limits come from the flags; headers get at most 10 s.
func TestServerLimitsFromFlags(t *testing.T) {
	for _, tc := range []struct {
		args   []string
		header time.Duration
		read   time.Duration
		conns  int
		grace  time.Duration
	}{
		{nil, 10 * time.Second, 30 * time.Second, 512, 5 * time.Second},
		{[]string{"--read-timeout", "2s", "--max-conns", "0", "--shutdown-grace", "0s"}, 2 * time.Second, 2 * time.Second, 0, 0},
		{[]string{"--read-timeout", "1m"}, 10 * time.Second, time.Minute, 512, 5 * time.Second},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			cfg, err := parseFlags(tc.args, io.Discard)
			require.NoError(t, err)
			s := cfg.server.newServer(http.NotFoundHandler(), slog.New(slog.DiscardHandler))
			assert.Equal(t, tc.header, s.ReadHeaderTimeout)
			assert.Equal(t, tc.read, s.ReadTimeout)
			assert.Equal(t, tc.read, s.IdleTimeout)
			assert.Zero(t, s.WriteTimeout, "a latency fault may hold an answer")
			assert.True(t, s.DisableGeneralOptionsHandler)
			assert.Equal(t, tc.conns, cfg.server.maxConns)
			assert.Equal(t, tc.grace, cfg.server.shutdownGrace)
		})
	}
}

func TestIsCleanPath(t *testing.T) {
	for path, want := range map[string]bool{
		"/": true, "/_fake": true, "/_fake/": true, "/_fake/state/contacts/x": true,
		"": false, "x": false, "/_fake/./x": false, "/_fake//x": false, "/_fake/x/..": false, "/_fake/x/.": false,
	} {
		assert.Equal(t, want, isCleanPath(path), path)
	}
}

// A handler that answers without writing still closes a connection whose
// body it did not read; one that read the body does not.
func TestCloseUnread(t *testing.T) {
	for _, tc := range []struct {
		name    string
		handler http.HandlerFunc
		body    string
		closing bool
	}{
		{"no write, body unread", func(http.ResponseWriter, *http.Request) {}, "{}", true},
		{"write, body unread", func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "x") }, "{}", true},
		{"body read", func(w http.ResponseWriter, r *http.Request) { _, _ = io.ReadAll(r.Body); w.WriteHeader(204) }, "{}", false},
		{"no body", func(http.ResponseWriter, *http.Request) {}, "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec := httptest.NewRecorder()
			var body io.Reader
			if tc.body != "" {
				body = strings.NewReader(tc.body)
			}
			closeUnread(tc.handler).ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/", body))
			assert.Equal(t, tc.closing, rec.Header().Get("Connection") == "close")
		})
	}
}

// A drop fault on a request with a body it did not read: the connection
// is dropped, and nothing is written on it afterwards.
func TestDropFaultOnARequestWithABody(t *testing.T) {
	p := start(t)
	require.Equal(t, http.StatusCreated, p.admin(http.MethodPost, "/_fake/faults", `{"method":"POST","path":"/chatapp/contacts","drop":true,"times":1}`).Status)
	c := slowRequest(t, p.addr, "Bearer fake-api-key")
	_, err := io.WriteString(c, strings.Repeat(" ", 1000))
	require.NoError(t, err)
	got, closed := readUntilClosed(c)
	assert.True(t, closed)
	assert.Empty(t, got, "dropped unanswered")
	require.True(t, p.stderr.WaitFor("path=/v1/chatapp/contacts status=0", safetyTimeout), p.stderr.String())
	assert.NotContains(t, p.stderr.String(), "hijacked")
}
