package fake

import (
	"bytes"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"path"
	"strings"

	"github.com/convoapi/convo-go/internal/statuswriter"
)

// endpoint is one route of the API. The routing itself is done by a
// net/http.ServeMux holding every endpoint under both prefixes: it matches
// the escaped path segment by segment (so an id holding an escaped "/" is
// one segment), answers HEAD wherever GET is registered and knows which
// methods a path allows. The server only uses it to find the endpoint, then
// runs its own pipeline (auth, rate limit, body, query) around the handler;
// the plain paths, which need nothing but comparing text, are matched
// without it, as it would match them (fastRoute).
type endpoint struct {
	method string
	// path is relative to the base URL, with at most one {id} wildcard.
	path   string
	handle func(s *Server, w http.ResponseWriter, r *http.Request, co *company, args []string)
	// public endpoints (the attachment files) need no key.
	public bool
	// wildcard is the index of the {id} segment in path split on "/", or -1.
	wildcard int
}

// ServeHTTP is never called: the mux is used to match, not to serve.
func (*endpoint) ServeHTTP(http.ResponseWriter, *http.Request) {}

var endpoints = []*endpoint{
	{method: http.MethodGet, path: "/channels", handle: (*Server).handleChannels},
	{method: http.MethodGet, path: "/conversations", handle: (*Server).handleConversations},
	{method: http.MethodGet, path: "/conversations/anomalies", handle: (*Server).handleAnomalies},
	{method: http.MethodGet, path: "/conversations/{id}/messages", handle: (*Server).handleMessages},
	{method: http.MethodGet, path: "/attachments/{id}", handle: (*Server).handleAttachment},
	{method: http.MethodPost, path: "/chatapp/contacts", handle: (*Server).handleCreateContact},
	{method: http.MethodGet, path: "/chatapp/contacts/lookup", handle: (*Server).handleLookupContact},
	{method: http.MethodPatch, path: "/chatapp/contacts/custom-fields", handle: (*Server).handleFields},
	{method: http.MethodDelete, path: "/chatapp/contacts/tags", handle: (*Server).handleRemoveTags},
	{method: http.MethodPost, path: "/chatapp/sequences/cancel", handle: (*Server).handleCancelSequence},
}

// filesPrefix is where temporary attachment URLs live, outside /v1.
const filesPrefix = "/_files/"

// filesEndpoint serves the temporary attachment URLs; it is outside the API
// prefixes and needs no key.
var filesEndpoint = &endpoint{
	method: http.MethodGet, path: filesPrefix + "{id}", public: true,
	handle: func(s *Server, w http.ResponseWriter, r *http.Request, _ *company, args []string) {
		s.handleFile(w, r, args[0])
	},
}

// apiPrefixes are the two prefixes of the API: the public /v1 and the
// internal /api/v1 that error bodies show.
var apiPrefixes = [...]string{"/api/v1", "/v1"}

// router matches a request to its endpoint; it is shared by every server,
// since endpoints hold no server state.
var router = newRouter()

func newRouter() *http.ServeMux {
	mux := http.NewServeMux()
	register := func(full string, ep *endpoint) {
		ep.wildcard = -1
		for i, seg := range strings.Split(ep.path, "/") {
			if strings.HasPrefix(seg, "{") {
				ep.wildcard = i
			}
		}
		mux.Handle(ep.method+" "+full, ep)
	}
	for _, ep := range endpoints {
		for _, prefix := range apiPrefixes {
			register(prefix+ep.path, ep)
		}
	}
	register(filesEndpoint.path, filesEndpoint)
	return mux
}

// exactRoutes and wildRoutes find the endpoints of the API without the
// mux, for the requests whose answer needs nothing of what the mux does
// beyond matching (see fastRoute): exactRoutes by method and relative
// path, wildRoutes by method, each with the text around its {id}.
var exactRoutes, wildRoutes = newFastRoutes()

// wildRoute is an endpoint whose relative path is before + {id} + after.
type wildRoute struct {
	before, after string
	ep            *endpoint
}

func newFastRoutes() (map[string]map[string]*endpoint, map[string][]wildRoute) {
	exact, wild := map[string]map[string]*endpoint{}, map[string][]wildRoute{}
	for _, ep := range endpoints {
		before, after, found := strings.Cut(ep.path, "{id}")
		if !found {
			if exact[ep.method] == nil {
				exact[ep.method] = map[string]*endpoint{}
			}
			exact[ep.method][ep.path] = ep
			continue
		}
		wild[ep.method] = append(wild[ep.method], wildRoute{before: before, after: after, ep: ep})
	}
	return exact, wild
}

// fastRoute finds the API endpoint of a request the way the mux does, for
// the common case where that takes no more than comparing text: an escaped
// path that is clean and holds no escape ("%": each segment is then the
// same escaped or not), under an API prefix, and a method an endpoint has
// (HEAD, which the mux answers with GET's endpoint, is left to the mux).
// ok is false when it cannot tell: route then asks the mux. arg is the
// {id}, "" for an endpoint without one.
func fastRoute(method, escaped string) (ep *endpoint, arg string, ok bool) {
	if strings.IndexByte(escaped, '%') >= 0 {
		return nil, "", false
	}
	prefix, rel := splitPrefix(escaped)
	if prefix == "" {
		return nil, "", false
	}
	if ep := exactRoutes[method][rel]; ep != nil {
		return ep, "", true
	}
	for _, w := range wildRoutes[method] {
		if id, found := strings.CutPrefix(rel, w.before); found {
			if id, found = strings.CutSuffix(id, w.after); found && id != "" && !strings.Contains(id, "/") {
				return w.ep, id, true
			}
		}
	}
	return nil, "", false
}

// splitPrefix cuts an escaped request path into the API prefix ("/v1" or
// "/api/v1") and the path relative to the base URL ("/channels"). A path
// outside the API (the attachment files, or no prefix at all) has prefix ""
// and rel the whole path; the base URL itself has rel "".
func splitPrefix(escaped string) (prefix, rel string) {
	for _, p := range apiPrefixes {
		if rest, found := strings.CutPrefix(escaped, p); found && (rest == "" || rest[0] == '/') {
			return p, rest
		}
	}
	return "", escaped
}

// internalPath is the form shown in error bodies: the /api/v1 prefix
// whichever prefix was sent (docs/behaviour.md, "Connecting"), no query
// string.
func internalPath(escaped string) string {
	if prefix, rel := splitPrefix(escaped); prefix != "" {
		return "/api/v1" + rel
	}
	return escaped
}

// isClean reports whether an escaped path has no empty, "." or ".."
// segment. ServeMux would redirect such a path to its cleaned form; the
// service's paths are exact, so the fake answers 404 instead.
func isClean(escaped string) bool {
	if strings.HasPrefix(escaped, "/") && !strings.Contains(escaped, "//") && !strings.Contains(escaped, "/.") {
		return true // nothing for path.Clean to change: no empty, "." or ".." segment
	}
	clean := path.Clean(escaped)
	if strings.HasSuffix(escaped, "/") && clean != "/" {
		clean += "/"
	}
	return clean == escaped
}

// route finds the endpoint of a request and its decoded wildcard; when
// there is none it returns the 404 or 405 answer (with the Allow header
// set on w for a 405).
func route(w http.ResponseWriter, r *http.Request, fast bool) (*endpoint, []string, *apiError) {
	escaped := r.URL.EscapedPath()
	notFound := func() *apiError {
		return errf(http.StatusNotFound, codeNotFound, "Cannot "+r.Method+" "+internalPath(escaped))
	}
	if !isClean(escaped) {
		return nil, nil, notFound()
	}
	if ep, arg, ok := fastRoute(r.Method, escaped); fast && ok {
		if arg == "" {
			return ep, nil, nil
		}
		return ep, []string{arg}, nil
	}
	h, pattern := router.Handler(r)
	if ep, ok := h.(*endpoint); ok && pattern != "" {
		if ep.wildcard < 0 {
			return ep, nil, nil
		}
		_, rel := splitPrefix(escaped)
		segs := strings.Split(rel, "/")
		if ep.wildcard >= len(segs) {
			return nil, nil, notFound()
		}
		arg, err := url.PathUnescape(segs[ep.wildcard])
		if err != nil {
			return nil, nil, notFound()
		}
		return ep, []string{arg}, nil
	}
	// No endpoint: ask the mux's own answer whether the path exists with
	// another method (405 and its Allow header) or not at all (404).
	probe := &probeWriter{header: http.Header{}}
	h.ServeHTTP(probe, r)
	if probe.status == http.StatusMethodNotAllowed {
		w.Header().Set("Allow", probe.header.Get("Allow"))
		return nil, nil, errf(http.StatusMethodNotAllowed, codeMethodNotAllowed, "Method "+r.Method+" is not allowed on "+internalPath(escaped)+".")
	}
	return nil, nil, notFound()
}

// probeWriter records the status and headers of the mux's 404 or 405
// answer, which the fake replaces by its own envelope.
type probeWriter struct {
	header http.Header
	status int
}

func (p *probeWriter) Header() http.Header         { return p.header }
func (p *probeWriter) Write(b []byte) (int, error) { return len(b), nil }
func (p *probeWriter) WriteHeader(code int)        { p.status = code }

// bodiless answers a HEAD request: the status and headers of the GET, no
// body. net/http's own server drops the body of a HEAD answer too, but a
// handler mounted elsewhere (a recorder, a proxy) may not.
type bodiless struct{ http.ResponseWriter }

func (b bodiless) Write(p []byte) (int, error) { return len(p), nil }

// Unwrap lets http.ResponseController reach the connection.
func (b bodiless) Unwrap() http.ResponseWriter { return b.ResponseWriter }

// exchange is what ServeHTTP needs for one request, allocated in one
// piece: the writer that records the answer's status, and the value of the
// Date header.
type exchange struct {
	rec  statuswriter.Writer
	date [1]string
}

// ServeHTTP runs the request pipeline: journal, fault rules, routing (404,
// 405), authentication (401), rate limits (429), body (400), query string
// (400), then the endpoint. The key is checked before anything else is read:
// the body of a request without a valid key is never read, nor journaled.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	// The Date header tells the service's time, like the envelope's
	// timestamp: both come from the fake's clock, never the machine's (a
	// client measures a Retry-After date against it).
	x := &exchange{rec: statuswriter.Writer{ResponseWriter: w}}
	x.date[0] = s.dateHeader(s.clock.Now())
	w.Header()["Date"] = x.date[:]
	rec := &x.rec
	var out http.ResponseWriter = rec
	if r.Method == http.MethodHead {
		out = bodiless{rec}
	}
	co, authErr := s.authenticate(r)
	var body []byte
	var bodyErr *apiError
	if authErr == nil {
		body, bodyErr = readBody(r)
	}
	keys := s.journalKeys()
	defer func() { s.record(r, co, keys, body, rec.Status, firstValue(w.Header()["Retry-After"])) }()

	out, answered := s.applyFaults(out, r)
	if answered {
		return
	}
	ep, args, apiErr := route(out, r, s.on(shortcutFastRoute))
	if apiErr != nil {
		s.writeError(out, r, apiErr)
		return
	}
	if ep.public {
		ep.handle(s, out, r, nil, args)
		return
	}
	if authErr != nil {
		s.writeError(out, r, authErr)
		return
	}
	if apiErr := s.limiter.allow(co.apiKey, ep.path == "/conversations/anomalies"); apiErr != nil {
		s.writeError(out, r, apiErr)
		return
	}
	if bodyErr != nil { // after 401 and 429: an unauthenticated request learns nothing
		s.writeError(out, r, bodyErr)
		return
	}
	if apiErr := normalizeQuery(r); apiErr != nil {
		s.writeError(out, r, apiErr)
		return
	}
	if s.log.Enabled(r.Context(), slog.LevelDebug) {
		s.log.Debug("fake: request", "method", r.Method, "path", s.RedactKeys(r.URL.Path)) // a key sent as an id
	}
	ep.handle(s, out, r, co, args)
}

// firstValue is the first of a header's values, "" when there is none: what
// Header.Get returns, for a name given in its canonical form.
func firstValue(vs []string) string {
	if len(vs) == 0 {
		return ""
	}
	return vs[0]
}

// normalizeQuery parses the query string the way the service's stack does:
// pairs are separated by "&" only (a ";" is part of a value, where Go's
// url.ParseQuery would drop the whole pair), "+" is a space, and "%" escapes
// must be valid (else 400 INVALID_PARAM). A parameter given twice is 400
// INVALID_PARAM naming it: no endpoint takes a repeated parameter (include
// is a comma list in one parameter), and picking one of the values would
// hide the caller's mistake. The result replaces RawQuery, so that handlers
// read it with r.URL.Query().
func normalizeQuery(r *http.Request) *apiError {
	raw := r.URL.RawQuery
	if raw == "" {
		return nil
	}
	q := url.Values{}
	for pair := range strings.SplitSeq(raw, "&") {
		if pair == "" {
			continue
		}
		k, v, _ := strings.Cut(pair, "=")
		k, err1 := url.QueryUnescape(k)
		v, err2 := url.QueryUnescape(v)
		if err1 != nil || err2 != nil {
			return invalidParam("The query string is malformed.")
		}
		if _, dup := q[k]; dup {
			return invalidParam(k + " is given more than once; give it once (a list is one comma-separated value)")
		}
		q[k] = []string{v}
	}
	if strings.Contains(raw, ";") {
		r.URL.RawQuery = q.Encode()
	}
	return nil
}

// readBody reads up to maxBodyBytes of the body and puts it back for the
// handlers. A larger body, or one that cannot be read whole (shorter than
// its Content-Length, broken chunked encoding), is 400 INVALID_PARAM naming
// the body: never an empty body that the handler would misread.
func readBody(r *http.Request) ([]byte, *apiError) {
	if r.Body == nil || r.Body == http.NoBody {
		return nil, nil
	}
	b, err := io.ReadAll(io.LimitReader(r.Body, maxBodyBytes+1))
	if err != nil {
		r.Body = http.NoBody
		return b, invalidParam("body could not be read whole: it ended before its Content-Length, or its chunked encoding is broken.")
	}
	if len(b) > maxBodyBytes {
		r.Body = http.NoBody
		return b[:maxBodyBytes], invalidParam("The request body is larger than 1 MiB.")
	}
	r.Body = io.NopCloser(bytes.NewReader(b))
	return b, nil
}
