package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/convoapi/convo-go/conformance"
)

// filesPrefix is where the proxy serves the temporary file addresses it
// hands out in place of the service's.
const filesPrefix = "/_convocheck/files/"

// maxRequestBody bounds a request body the proxy forwards: the API's
// requests are small JSON documents.
const maxRequestBody = 1 << 20

// maxAttachmentAnswer bounds an attachment answer the proxy rewrites.
const maxAttachmentAnswer = 1 << 20

// recordingProxy forwards /v1/… to the upstream through a recorder, and
// the file addresses it handed out to the files they stand for. The
// forwarding itself is httputil.ReverseProxy's (hop-by-hop headers and
// those the Connection header names, trailers, streaming); this type says
// where each request goes, with which key headers, and rewrites the file
// address of an attachment answer.
type recordingProxy struct {
	upstream string // the service's base URL, ending in /v1
	proxy    httputil.ReverseProxy
	sent     atomic.Int64

	mu    sync.Mutex
	files map[string]*url.URL // token -> the service's file address
	ring  []string            // tokens, oldest first, at most maxFileAddresses
}

func newRecordingProxy(upstream string, rec *conformance.Recorder) *recordingProxy {
	base := http.DefaultTransport.(*http.Transport).Clone()
	base.Proxy = nil // the recording is of the service, not of a proxy on the way
	p := &recordingProxy{upstream: upstream, files: map[string]*url.URL{}}
	p.proxy = httputil.ReverseProxy{
		Rewrite:        p.rewrite,
		Transport:      rec.Transport(base),
		ModifyResponse: p.modifyResponse,
		ErrorHandler:   proxyError,
		ErrorLog:       log.New(io.Discard, "", 0), // a caller that left mid-answer is no news
	}
	return p
}

func (p *recordingProxy) exchanges() int64 { return p.sent.Load() }

// route is where one request goes, as ServeHTTP decided it.
type route struct {
	to         *url.URL
	file       bool   // a file address: a bearer secret of its own, sent with no key
	attachment bool   // an attachment answer, whose file address is rewritten
	host       string // the proxy's host as the caller named it
}

type routeKey struct{}

func (p *recordingProxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	rt := route{host: r.Host}
	switch path := r.URL.EscapedPath(); {
	case strings.HasPrefix(path, filesPrefix):
		p.mu.Lock()
		to, ok := p.files[strings.TrimPrefix(path, filesPrefix)]
		p.mu.Unlock()
		if !ok {
			http.Error(w, "convocheck record: unknown or forgotten file address; ask for the attachment again", http.StatusNotFound)
			return
		}
		u := *to // the outgoing request's own copy: one address may be downloaded by several at once
		rt.to, rt.file = &u, true
	case path == "/v1" || strings.HasPrefix(path, "/v1/"):
		rel := strings.TrimPrefix(path, "/v1")
		to, err := url.Parse(p.upstream + rel)
		if err != nil {
			http.Error(w, "convocheck record: "+err.Error(), http.StatusBadRequest)
			return
		}
		to.RawQuery = r.URL.RawQuery
		rt.to, rt.attachment = to, strings.HasPrefix(rel, "/attachments/")
	default:
		http.Error(w, "convocheck record: not an API path; clients use the base URL printed at start, ending in /v1", http.StatusNotFound)
		return
	}
	if r.Body != nil && r.ContentLength != 0 {
		r.Body = http.MaxBytesReader(w, r.Body, maxRequestBody)
	}
	p.proxy.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), routeKey{}, rt)))
}

func routeOf(r *http.Request) route { return r.Context().Value(routeKey{}).(route) }

// rewrite points the outgoing request at its route's address.
func (p *recordingProxy) rewrite(pr *httputil.ProxyRequest) {
	rt := routeOf(pr.In)
	pr.Out.URL, pr.Out.Host = rt.to, ""
	// Without the caller's Accept-Encoding the transport asks for gzip and
	// decodes it, so that the recorder sees the JSON.
	pr.Out.Header.Del("Accept-Encoding")
	if rt.file {
		pr.Out.Header.Del("Authorization")
		pr.Out.Header.Del("X-Api-Key")
	}
	p.sent.Add(1)
}

// errAttachmentAnswer is an attachment answer too large, or cut, to rewrite.
var errAttachmentAnswer = errors.New("the attachment answer could not be read whole")

// modifyResponse replaces the file address of an attachment answer by one
// on the proxy, so that the download passes through it. An answer that is
// not the attachment envelope passes as it came.
func (p *recordingProxy) modifyResponse(resp *http.Response) error {
	rt := routeOf(resp.Request)
	if !rt.attachment || resp.StatusCode != http.StatusOK {
		return nil
	}
	raw, err := io.ReadAll(io.LimitReader(resp.Body, maxAttachmentAnswer+1))
	resp.Body.Close()
	if err != nil || len(raw) > maxAttachmentAnswer {
		return errAttachmentAnswer
	}
	if out, ok := p.rewriteAttachment(raw, rt.host); ok {
		raw = out
	}
	resp.Body = io.NopCloser(bytes.NewReader(raw))
	resp.ContentLength = int64(len(raw))
	resp.Header.Set("Content-Length", strconv.Itoa(len(raw)))
	return nil
}

// rewriteAttachment returns the attachment envelope raw with its file
// address replaced by one on the proxy at host; ok is false when raw is
// not such an envelope.
func (p *recordingProxy) rewriteAttachment(raw []byte, host string) (out []byte, ok bool) {
	var env, data map[string]json.RawMessage
	var addr string
	if json.Unmarshal(raw, &env) != nil || json.Unmarshal(env["data"], &data) != nil || json.Unmarshal(data["url"], &addr) != nil || addr == "" {
		return nil, false
	}
	to, err := url.Parse(addr)
	if err != nil {
		return nil, false
	}
	data["url"], _ = json.Marshal("http://" + host + filesPrefix + p.remember(to))
	env["data"], _ = json.Marshal(data)
	out, _ = json.Marshal(env)
	return out, true
}

// remember keeps a file address under a new token and returns the token;
// the oldest is forgotten past maxFileAddresses.
func (p *recordingProxy) remember(to *url.URL) string {
	b := make([]byte, 16)
	_, _ = rand.Read(b) // crypto/rand.Read never fails (Go 1.24+)
	token := hex.EncodeToString(b)
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.ring) >= maxFileAddresses {
		delete(p.files, p.ring[0])
		p.ring = p.ring[1:]
	}
	p.files[token] = to
	p.ring = append(p.ring, token)
	return token
}

// proxyError answers a request the proxy could not forward: 413 for a
// request body over maxRequestBody, else 502. The error's text is given
// without the address, whose query may hold a key.
func proxyError(w http.ResponseWriter, _ *http.Request, err error) {
	var maxErr *http.MaxBytesError
	switch {
	case errors.As(err, &maxErr):
		http.Error(w, fmt.Sprintf("convocheck record: the request body is over %d bytes", maxRequestBody), http.StatusRequestEntityTooLarge)
	case errors.Is(err, errAttachmentAnswer):
		http.Error(w, "convocheck record: "+err.Error(), http.StatusBadGateway)
	default:
		var uerr *url.Error
		if errors.As(err, &uerr) {
			err = uerr.Err
		}
		http.Error(w, "convocheck record: the upstream did not answer: "+err.Error(), http.StatusBadGateway)
	}
}
