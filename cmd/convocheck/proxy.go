package main

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
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

// hopByHop are the headers of one connection, never forwarded.
var hopByHop = []string{"Connection", "Keep-Alive", "Proxy-Authenticate", "Proxy-Authorization", "Proxy-Connection",
	"Te", "Trailer", "Transfer-Encoding", "Upgrade"}

// recordingProxy forwards /v1/… to the upstream through a recorder, and
// the file addresses it handed out to the files they stand for.
type recordingProxy struct {
	upstream string            // the service's base URL, ending in /v1
	rt       http.RoundTripper // the recorder's transport
	sent     atomic.Int64

	mu    sync.Mutex
	files map[string]string // token -> the service's file address
	ring  []string          // tokens, oldest first, at most maxFileAddresses
}

func newRecordingProxy(upstream string, rec *conformance.Recorder) *recordingProxy {
	base := http.DefaultTransport.(*http.Transport).Clone()
	base.Proxy = nil // the recording is of the service, not of a proxy on the way
	return &recordingProxy{upstream: upstream, rt: rec.Transport(base), files: map[string]string{}}
}

func (p *recordingProxy) exchanges() int64 { return p.sent.Load() }

func (p *recordingProxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch path := r.URL.EscapedPath(); {
	case strings.HasPrefix(path, filesPrefix):
		p.file(w, r, strings.TrimPrefix(path, filesPrefix))
	case path == "/v1" || strings.HasPrefix(path, "/v1/"):
		p.api(w, r, strings.TrimPrefix(path, "/v1"))
	default:
		http.Error(w, "convocheck record: not an API path; clients use the base URL printed at start, ending in /v1", http.StatusNotFound)
	}
}

// api forwards an API request, with the caller's key, to the upstream.
func (p *recordingProxy) api(w http.ResponseWriter, r *http.Request, rel string) {
	target := p.upstream + rel
	if r.URL.RawQuery != "" {
		target += "?" + r.URL.RawQuery
	}
	resp, ok := p.forward(w, r, target, true)
	if !ok {
		return
	}
	defer resp.Body.Close()
	if strings.HasPrefix(rel, "/attachments/") && resp.StatusCode == http.StatusOK {
		p.rewriteAttachment(w, r, resp)
		return
	}
	copyAnswer(w, resp, nil)
}

// file forwards a download of a file address the proxy handed out.
func (p *recordingProxy) file(w http.ResponseWriter, r *http.Request, token string) {
	p.mu.Lock()
	target, ok := p.files[token]
	p.mu.Unlock()
	if !ok {
		http.Error(w, "convocheck record: unknown or forgotten file address; ask for the attachment again", http.StatusNotFound)
		return
	}
	resp, ok := p.forward(w, r, target, false)
	if !ok {
		return
	}
	defer resp.Body.Close()
	copyAnswer(w, resp, nil)
}

// forward sends r to target through the recorder; withKey keeps the
// caller's key headers (a file address is a bearer secret of its own and
// gets none). On failure it answers 502 itself.
func (p *recordingProxy) forward(w http.ResponseWriter, r *http.Request, target string, withKey bool) (*http.Response, bool) {
	var body io.Reader
	if r.ContentLength != 0 && r.Body != nil {
		body = http.MaxBytesReader(w, r.Body, maxRequestBody)
	}
	out, err := http.NewRequestWithContext(r.Context(), r.Method, target, body)
	if err != nil {
		http.Error(w, "convocheck record: "+err.Error(), http.StatusBadRequest)
		return nil, false
	}
	if body != nil {
		out.ContentLength = r.ContentLength // as the caller sent it: -1 stays chunked
	}
	for name, vs := range r.Header {
		out.Header[name] = append([]string(nil), vs...)
	}
	for _, h := range hopByHop {
		out.Header.Del(h)
	}
	// Without the caller's Accept-Encoding the transport asks for gzip and
	// decodes it, so that the recorder sees the JSON.
	out.Header.Del("Accept-Encoding")
	if !withKey {
		out.Header.Del("Authorization")
		out.Header.Del("X-Api-Key")
	}
	p.sent.Add(1)
	resp, err := p.rt.RoundTrip(out)
	if err != nil {
		var maxErr *http.MaxBytesError
		if errors.As(err, &maxErr) {
			http.Error(w, fmt.Sprintf("convocheck record: the request body is over %d bytes", maxRequestBody), http.StatusRequestEntityTooLarge)
			return nil, false
		}
		var uerr *url.Error
		if errors.As(err, &uerr) {
			err = uerr.Err // without the address, whose query may hold a key
		}
		http.Error(w, "convocheck record: the upstream did not answer: "+err.Error(), http.StatusBadGateway)
		return nil, false
	}
	return resp, true
}

// rewriteAttachment replaces the file address of an attachment answer by
// one on the proxy, so that the download passes through it.
func (p *recordingProxy) rewriteAttachment(w http.ResponseWriter, r *http.Request, resp *http.Response) {
	raw, err := io.ReadAll(io.LimitReader(resp.Body, maxAttachmentAnswer+1))
	if err != nil || len(raw) > maxAttachmentAnswer {
		http.Error(w, "convocheck record: the attachment answer could not be read whole", http.StatusBadGateway)
		return
	}
	var env map[string]json.RawMessage
	var data map[string]json.RawMessage
	var addr string
	if json.Unmarshal(raw, &env) != nil || json.Unmarshal(env["data"], &data) != nil || json.Unmarshal(data["url"], &addr) != nil || addr == "" {
		copyAnswer(w, resp, raw)
		return
	}
	data["url"], _ = json.Marshal("http://" + r.Host + filesPrefix + p.remember(addr))
	env["data"], _ = json.Marshal(data)
	out, _ := json.Marshal(env)
	copyAnswer(w, resp, out)
}

// remember keeps a file address under a new token and returns the token;
// the oldest is forgotten past maxFileAddresses.
func (p *recordingProxy) remember(addr string) string {
	b := make([]byte, 16)
	_, _ = rand.Read(b) // crypto/rand.Read never fails (Go 1.24+)
	token := hex.EncodeToString(b)
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.ring) >= maxFileAddresses {
		delete(p.files, p.ring[0])
		p.ring = p.ring[1:]
	}
	p.files[token] = addr
	p.ring = append(p.ring, token)
	return token
}

// copyAnswer writes resp's status and end-to-end headers, then body when
// it is not nil, else resp's body as it comes.
func copyAnswer(w http.ResponseWriter, resp *http.Response, body []byte) {
	h := w.Header()
	for name, vs := range resp.Header {
		h[name] = append([]string(nil), vs...)
	}
	for _, name := range hopByHop {
		h.Del(name)
	}
	h.Del("Content-Length")
	if body != nil {
		h.Set("Content-Length", strconv.Itoa(len(body)))
	} else if resp.ContentLength >= 0 && !resp.Uncompressed {
		h.Set("Content-Length", strconv.FormatInt(resp.ContentLength, 10))
	}
	w.WriteHeader(resp.StatusCode)
	if body != nil {
		_, _ = w.Write(body)
		return
	}
	_, _ = io.Copy(w, resp.Body)
}
