package main

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/convoapi/convo-go/conformance"
	"github.com/convoapi/convo-go/internal/testkit"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const proxyTestKey = "ck_live_proxyTestKeyThatMustNotLeak"

// seenRequest is what the upstream of a proxy test was sent.
type seenRequest struct {
	method, path, query string
	header              http.Header
	body                []byte
}

// proxyUnder starts the recording proxy in front of upstream (an address
// ending in /v1) and returns its address and the recording so far.
func proxyUnder(t *testing.T, upstream string) (base string, p *recordingProxy, recording func() string) {
	t.Helper()
	var buf testkit.Buffer
	p = newRecordingProxy(upstream, conformance.NewRecorder(&buf, conformance.RecorderOptions{}))
	srv := httptest.NewServer(p)
	t.Cleanup(srv.Close)
	return srv.URL, p, buf.String
}

// recordingUpstream is an upstream that answers with answer and keeps what
// it was sent.
func recordingUpstream(t *testing.T, answer http.HandlerFunc) (base string, seen func() []seenRequest) {
	t.Helper()
	var mu sync.Mutex
	var got []seenRequest
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		mu.Lock()
		got = append(got, seenRequest{r.Method, r.URL.Path, r.URL.RawQuery, r.Header.Clone(), body})
		mu.Unlock()
		answer(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/v1", func() []seenRequest {
		mu.Lock()
		defer mu.Unlock()
		return append([]seenRequest(nil), got...)
	}
}

func proxyDo(t *testing.T, method, target string, body io.Reader, header http.Header) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), method, target, body)
	require.NoError(t, err)
	for k, vs := range header {
		req.Header[k] = vs
	}
	resp, err := http.DefaultTransport.RoundTrip(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp, string(b)
}

// TestProxyForwards checks what reaches the upstream and what comes back:
// the caller's key and query pass, hop-by-hop headers and the caller's
// Accept-Encoding do not, a gzip answer is recorded and returned decoded,
// and the answer's status and end-to-end headers come back as sent.
func TestProxyForwards(t *testing.T) {
	upstream, seen := recordingUpstream(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Upstream", "yes")
		w.Header().Set("Content-Type", "application/json")
		if strings.Contains(r.Header.Get("Accept-Encoding"), "gzip") {
			w.Header().Set("Content-Encoding", "gzip")
			w.WriteHeader(http.StatusCreated)
			zw := gzip.NewWriter(w)
			_, _ = zw.Write([]byte(`{"success":true,"data":{"id":"c1"}}`))
			_ = zw.Close()
			return
		}
		w.WriteHeader(http.StatusCreated)
		_, _ = w.Write([]byte(`{"success":true,"data":{"id":"c1"}}`))
	})
	base, p, recording := proxyUnder(t, upstream)
	resp, body := proxyDo(t, http.MethodPost, base+"/v1/chatapp/contacts?x=1&y=a%2Fb", strings.NewReader(`{"name":"N"}`), http.Header{
		"Authorization":   {"Bearer " + proxyTestKey},
		"Accept-Encoding": {"br"},
		"Connection":      {"X-Secret-Hop"},
		"X-Secret-Hop":    {"dropped"},
		"Te":              {"trailers"},
		"Content-Type":    {"application/json"},
	})
	require.Equal(t, http.StatusCreated, resp.StatusCode, body)
	assert.JSONEq(t, `{"success":true,"data":{"id":"c1"}}`, body)
	assert.Equal(t, "yes", resp.Header.Get("X-Upstream"))
	assert.Empty(t, resp.Header.Get("Content-Encoding"), "the answer comes back decoded")

	got := seen()
	require.Len(t, got, 1)
	r := got[0]
	assert.Equal(t, http.MethodPost, r.method)
	assert.Equal(t, "/v1/chatapp/contacts", r.path)
	assert.Equal(t, "x=1&y=a%2Fb", r.query)
	assert.Equal(t, "Bearer "+proxyTestKey, r.header.Get("Authorization"))
	assert.Equal(t, "gzip", r.header.Get("Accept-Encoding"), "the proxy's transport asks for gzip itself, so that it records JSON")
	assert.Empty(t, r.header.Get("X-Secret-Hop"), "a header named in Connection is the hop's")
	assert.Empty(t, r.header.Values("X-Forwarded-For"), "the recording is of the service, not of a proxy")
	assert.Equal(t, `{"name":"N"}`, string(r.body))
	assert.EqualValues(t, 1, p.exchanges())
	assert.Contains(t, recording(), `"id":"c1"`)
	assert.NotContains(t, recording(), proxyTestKey)
}

// TestProxyErrors covers the answers the proxy gives itself.
func TestProxyErrors(t *testing.T) {
	// An upstream that is not there: a port that was listened on and closed.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	gone := "http://" + ln.Addr().String() + "/v1"
	require.NoError(t, ln.Close())
	ok := func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte(`{}`)) }

	tests := []struct {
		name     string
		upstream string // "" : one that answers 200 {}
		method   string
		path     string
		body     io.Reader
		status   int
		says     string
	}{
		{name: "not an API path", method: http.MethodGet, path: "/elsewhere", status: http.StatusNotFound, says: "not an API path"},
		{name: "unknown file address", method: http.MethodGet, path: filesPrefix + "0123456789abcdef", status: http.StatusNotFound, says: "unknown or forgotten file address"},
		{name: "request body too large", method: http.MethodPost, path: "/v1/chatapp/contacts",
			body: bytes.NewReader(bytes.Repeat([]byte("x"), maxRequestBody+1)), status: http.StatusRequestEntityTooLarge, says: "the request body is over 1048576 bytes"},
		{name: "upstream down", upstream: gone, method: http.MethodGet, path: "/v1/channels?api_key=" + proxyTestKey,
			status: http.StatusBadGateway, says: "the upstream did not answer"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			upstream := tt.upstream
			if upstream == "" {
				upstream, _ = recordingUpstream(t, ok)
			}
			base, _, recording := proxyUnder(t, upstream)
			resp, body := proxyDo(t, tt.method, base+tt.path, tt.body, http.Header{"Authorization": {"Bearer " + proxyTestKey}})
			assert.Equal(t, tt.status, resp.StatusCode, body)
			assert.Contains(t, body, "convocheck record: "+tt.says)
			assert.NotContains(t, body, proxyTestKey)
			assert.NotContains(t, recording(), proxyTestKey)
		})
	}
}

// TestProxyFileAddresses checks the attachment rewrite: the answer's file
// address is replaced by one on the proxy, which forwards the download
// without the caller's key; an answer that is not the attachment envelope
// passes as it is; one too large to rewrite is a 502; the oldest address is
// forgotten past maxFileAddresses.
func TestProxyFileAddresses(t *testing.T) {
	var fileHeaders http.Header
	var mu sync.Mutex
	files := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		fileHeaders = r.Header.Clone()
		mu.Unlock()
		_, _ = w.Write([]byte("file bytes of " + r.URL.Path))
	}))
	t.Cleanup(files.Close)
	upstream, _ := recordingUpstream(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/v1/attachments/big":
			_, _ = w.Write(bytes.Repeat([]byte(" "), maxAttachmentAnswer+1))
		case "/v1/attachments/plain":
			_, _ = w.Write([]byte("not json"))
		default:
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte(`{"success":true,"data":{"url":"` + files.URL + `/f/` + strings.TrimPrefix(r.URL.Path, "/v1/attachments/") + `?sig=s"}}`))
		}
	})
	base, p, _ := proxyUnder(t, upstream)
	key := http.Header{"Authorization": {"Bearer " + proxyTestKey}, "X-Api-Key": {proxyTestKey}}

	resp, body := proxyDo(t, http.MethodGet, base+"/v1/attachments/a1", nil, key)
	require.Equal(t, http.StatusOK, resp.StatusCode, body)
	var env struct {
		Data struct {
			URL string `json:"url"`
		} `json:"data"`
	}
	require.NoError(t, json.Unmarshal([]byte(body), &env))
	require.True(t, strings.HasPrefix(env.Data.URL, base+filesPrefix), env.Data.URL)
	resp, got := proxyDo(t, http.MethodGet, env.Data.URL, nil, key)
	require.Equal(t, http.StatusOK, resp.StatusCode, got)
	assert.Equal(t, "file bytes of /f/a1", got)
	mu.Lock()
	assert.Empty(t, fileHeaders.Get("Authorization"), "a file address gets no key")
	assert.Empty(t, fileHeaders.Get("X-Api-Key"))
	mu.Unlock()

	resp, body = proxyDo(t, http.MethodGet, base+"/v1/attachments/plain", nil, key)
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Equal(t, "not json", body)

	resp, body = proxyDo(t, http.MethodGet, base+"/v1/attachments/big", nil, key)
	assert.Equal(t, http.StatusBadGateway, resp.StatusCode)
	assert.Contains(t, body, "convocheck record: the attachment answer could not be read whole")

	first := strings.TrimPrefix(env.Data.URL, base+filesPrefix)
	for range maxFileAddresses {
		p.remember(&url.URL{Scheme: "http", Host: "127.0.0.1:1", Path: "/elsewhere"})
	}
	resp, body = proxyDo(t, http.MethodGet, base+filesPrefix+first, nil, nil)
	assert.Equal(t, http.StatusNotFound, resp.StatusCode, "the oldest address is forgotten")
	assert.Contains(t, body, "unknown or forgotten file address")
}
