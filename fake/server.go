package fake

import (
	"bytes"
	"context"
	"crypto/rand"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/convoapi/convo-go/internal/statuswriter"
	"github.com/convoapi/convo-go/internal/testhook"
)

// DefaultAPIKey is the API key of the default company unless [WithAPIKey]
// gives another.
const DefaultAPIKey = "fake-api-key"

// Defaults of the options.
const (
	DefaultRateLimit       = 1000.0          // requests per second per key: ordinary tests never hit it
	DefaultRateBurst       = 1000            // bucket size of the default rate limit
	DefaultAnomalyCacheTTL = 5 * time.Minute // spec §4.4 rule 3: "a few minutes"
	DefaultAttachmentTTL   = 15 * time.Minute
	DefaultJournalLimit    = 10000
	maxBodyBytes           = 1 << 20
)

// Server is the fake service. Create it with [New] in tests or [NewServer]
// elsewhere. All its methods are safe for concurrent use.
type Server struct {
	// mu is the one lock over the state below (companies and everything they
	// hold, file grants, the insert sequence).
	mu        sync.RWMutex
	companies []*company
	byID      map[string]*company // company id -> company
	defaultCo *company
	seq       uint64
	files     map[string]*fileGrant // attachment URL token -> grant
	index     objectIndex           // global id -> object, for the state getters

	clock      *Clock
	errIDs     *errorIDs
	cursorKey  []byte
	log        *slog.Logger
	publicBase string // WithPublicURL: scheme://host[/prefix] of attachment URLs

	limiter  *limiter
	faults   faultSet
	journal  journal
	ts       *httptest.Server
	cfg      config
	closeOne sync.Once
}

type config struct {
	apiKey         string
	clock          *Clock
	rate           float64
	burst          int
	anomalyCalls   int
	anomalyPer     time.Duration
	anomalyTTL     time.Duration
	attachmentTTL  time.Duration
	seed           *Seed
	logger         *slog.Logger
	publicURL      string
	journalLimit   int
	journalLimitOK bool
}

// Option configures a [Server].
type Option func(*config)

// WithClock makes the server read time from c, typically a
// [NewManualClock]. Default: a real clock.
func WithClock(c *Clock) Option { return func(cfg *config) { cfg.clock = c } }

// WithAPIKey sets the API key of the default company (default [DefaultAPIKey]).
func WithAPIKey(key string) Option { return func(cfg *config) { cfg.apiKey = key } }

// WithRateLimit sets the request limit per API key (spec §8, D11): a token
// bucket of burst tokens refilled at perSecond on the server's clock, the
// three header forms counted together. perSecond <= 0 disables the limit.
// Default: [DefaultRateLimit] per second, burst [DefaultRateBurst].
func WithRateLimit(perSecond float64, burst int) Option {
	return func(cfg *config) { cfg.rate, cfg.burst = perSecond, burst }
}

// WithAnomalyRateLimit gives the anomalies endpoint its own limit per key
// (spec §8: "set for about one pass per day"): calls requests per period,
// e.g. WithAnomalyRateLimit(1, 24*time.Hour). Off by default.
func WithAnomalyRateLimit(calls int, per time.Duration) Option {
	return func(cfg *config) { cfg.anomalyCalls, cfg.anomalyPer = calls, per }
}

// WithAnomalyCacheTTL sets how long an anomaly report stays cached per
// company and bucket (spec §4.4 rule 3). Default [DefaultAnomalyCacheTTL]; 0
// disables the cache.
func WithAnomalyCacheTTL(d time.Duration) Option { return func(cfg *config) { cfg.anomalyTTL = d } }

// WithAttachmentTTL sets how long a temporary attachment URL stays valid
// (spec §4.2, D9). Default [DefaultAttachmentTTL].
func WithAttachmentTTL(d time.Duration) Option { return func(cfg *config) { cfg.attachmentTTL = d } }

// WithSeed loads seed at start (see [Server.Load]). When the seed has a now
// and no [WithClock] is given, the server runs on a manual clock frozen at it.
func WithSeed(seed *Seed) Option { return func(cfg *config) { cfg.seed = seed } }

// WithLogger logs every request at debug level and seeding problems at warn
// level. Default: nothing is logged.
func WithLogger(l *slog.Logger) Option { return func(cfg *config) { cfg.logger = l } }

// WithPublicURL sets the scheme, host and optional path prefix under which
// the server is reachable, e.g. "https://fake.example.com/convo", for the
// temporary attachment URLs. Default: derived from each request's Host, which
// is right unless the handler is mounted under a prefix or behind a proxy.
func WithPublicURL(base string) Option { return func(cfg *config) { cfg.publicURL = base } }

// WithJournalLimit bounds the request journal to the last n requests
// (default [DefaultJournalLimit]; 0 disables the journal).
func WithJournalLimit(n int) Option {
	return func(cfg *config) { cfg.journalLimit, cfg.journalLimitOK = n, true }
}

// New starts a server for the test t on a loopback address and closes it with
// t.Cleanup. A seed given by [WithSeed] that does not load fails the test.
func New(t testing.TB, opts ...Option) *Server {
	t.Helper()
	s, err := newServer(true, opts...)
	if err != nil {
		t.Fatalf("fake: %v", err)
	}
	t.Cleanup(s.Close)
	return s
}

// NewServer starts a server on a loopback address, for use outside tests;
// call [Server.Close] when done. A seed given by [WithSeed] that does not
// load is logged and ignored; use [Server.Load] to see the error.
func NewServer(opts ...Option) *Server {
	s, err := newServer(true, opts...)
	if err != nil {
		s.log.Warn("fake: seed not loaded", "error", err)
	}
	return s
}

// NewHandler builds a server without starting a listener: only
// [Server.Handler] is meaningful (URL returns ""). Use it to mount the fake
// in a server of your own, e.g. cmd/convofake.
func NewHandler(opts ...Option) (*Server, error) {
	return newServer(false, opts...)
}

func newServer(listen bool, opts ...Option) (*Server, error) {
	cfg := config{
		apiKey:        DefaultAPIKey,
		rate:          DefaultRateLimit,
		burst:         DefaultRateBurst,
		anomalyTTL:    DefaultAnomalyCacheTTL,
		attachmentTTL: DefaultAttachmentTTL,
		journalLimit:  DefaultJournalLimit,
	}
	for _, o := range opts {
		if o != nil {
			o(&cfg)
		}
	}
	clock := cfg.clock
	if clock == nil {
		if cfg.seed != nil && cfg.seed.Now != nil {
			clock = NewManualClock(*cfg.seed.Now)
		} else {
			clock = NewRealClock()
		}
	}
	logger := cfg.logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	key := make([]byte, 32)
	_, _ = rand.Read(key)
	s := &Server{
		clock:      clock,
		errIDs:     newErrorIDs(),
		cursorKey:  key,
		log:        logger,
		publicBase: strings.TrimSuffix(cfg.publicURL, "/"),
		cfg:        cfg,
	}
	s.limiter = newLimiter(clock, cfg.rate, cfg.burst, cfg.anomalyCalls, cfg.anomalyPer)
	s.journal.limit = cfg.journalLimit
	s.resetLocked()
	var err error
	if cfg.seed != nil {
		err = s.Load(cfg.seed)
	}
	if listen {
		s.ts = newLoopbackServer(s)
	}
	return s, err
}

func newLoopbackServer(h http.Handler) *httptest.Server {
	ts := httptest.NewUnstartedServer(testhook.Handler(h))
	// Loopback only (the brief's rule); httptest already binds 127.0.0.1.
	if l, err := net.Listen("tcp", "127.0.0.1:0"); err == nil {
		ts.Listener.Close()
		ts.Listener = l
	}
	ts.Start()
	return ts
}

// Close stops the server's listener. It is safe to call more than once.
func (s *Server) Close() {
	s.closeOne.Do(func() {
		if s.ts != nil {
			s.ts.CloseClientConnections()
			s.ts.Close()
		}
	})
}

// URL returns the base URL of the API, ending in /v1 (spec §1), e.g.
// http://127.0.0.1:40123/v1. It is "" for a server built by [NewHandler].
func (s *Server) URL() string {
	if s.ts == nil {
		return ""
	}
	return s.ts.URL + "/v1"
}

// APIKey returns the API key of the default company.
func (s *Server) APIKey() string {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.defaultCo.apiKey
}

// Clock returns the server's clock.
func (s *Server) Clock() *Clock { return s.clock }

// Handler returns the server as an http.Handler, to mount in a server of
// your own. It serves /v1/..., /api/v1/... (D21) and the temporary
// attachment URLs under /_files/.
func (s *Server) Handler() http.Handler { return testhook.Handler(s) }

// HTTPClient returns an *http.Client suitable for the server (the listener's
// own client); plain http.DefaultClient works too.
func (s *Server) HTTPClient() *http.Client {
	if s.ts == nil {
		return http.DefaultClient
	}
	return s.ts.Client()
}

// route is one endpoint of the API, path relative to /v1 with {} wildcards.
type route struct {
	method  string
	pattern []string
	handle  func(s *Server, w http.ResponseWriter, r *http.Request, co *company, args []string)
}

var routes = []route{
	{http.MethodGet, split("/channels"), (*Server).handleChannels},                        // spec §4.5
	{http.MethodGet, split("/conversations"), (*Server).handleConversations},              // spec §4.3
	{http.MethodGet, split("/conversations/anomalies"), (*Server).handleAnomalies},        // spec §4.4
	{http.MethodGet, split("/conversations/{}/messages"), (*Server).handleMessages},       // spec §4.1
	{http.MethodGet, split("/attachments/{}"), (*Server).handleAttachment},                // spec §4.2
	{http.MethodPost, split("/chatapp/contacts"), (*Server).handleCreateContact},          // spec §4.6
	{http.MethodGet, split("/chatapp/contacts/lookup"), (*Server).handleLookupContact},    // spec §4.7
	{http.MethodPatch, split("/chatapp/contacts/custom-fields"), (*Server).handleFields},  // spec §4.8
	{http.MethodDelete, split("/chatapp/contacts/tags"), (*Server).handleRemoveTags},      // spec §4.9
	{http.MethodPost, split("/chatapp/sequences/cancel"), (*Server).handleCancelSequence}, // spec §4.10
}

// split cuts a path into segments; one trailing slash is ignored, empty
// segments (a double slash) are kept, so they match no route.
func split(p string) []string {
	p = strings.TrimPrefix(p, "/")
	p = strings.TrimSuffix(p, "/")
	return strings.Split(p, "/")
}

// filesPrefix is where temporary attachment URLs live, outside /v1 (D9).
const filesPrefix = "/_files/"

// apiPath strips the /v1 or /api/v1 prefix (D21); ok is false for paths
// outside the API.
func apiPath(p string) (rel string, ok bool) {
	for _, prefix := range []string{"/api/v1", "/v1"} {
		if rest, found := strings.CutPrefix(p, prefix); found && (rest == "" || rest[0] == '/') {
			return rest, true
		}
	}
	return "", false
}

// internalPath is the form shown in error bodies: /v1 is rewritten to
// /api/v1 (spec §7 and §9 rule 4).
func internalPath(p string) string {
	if rel, ok := apiPath(p); ok {
		return "/api/v1" + rel
	}
	return p
}

func match(pattern, segs []string) ([]string, bool) {
	if len(pattern) != len(segs) {
		return nil, false
	}
	var args []string
	for i, p := range pattern {
		if p == "{}" {
			if segs[i] == "" {
				return nil, false
			}
			args = append(args, segs[i])
		} else if p != segs[i] {
			return nil, false
		}
	}
	return args, true
}

// ServeHTTP runs the request pipeline: journal, fault rules, routing (404,
// 405), authentication (401), rate limits (429), body size (400), then the
// endpoint.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	rec := &statuswriter.Writer{ResponseWriter: w}
	body, tooLarge := readBody(r)
	defer func() { s.record(r, body, rec.Status) }()

	if s.applyFaults(rec, r) {
		return
	}
	if r.Context().Err() != nil {
		return
	}
	if strings.HasPrefix(r.URL.Path, filesPrefix) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			rec.Header().Set("Allow", "GET, HEAD")
			s.writeError(rec, r, errf(http.StatusMethodNotAllowed, CodeMethodNotAllowed, "Method "+r.Method+" is not allowed on this path."))
			return
		}
		s.handleFile(rec, r, strings.TrimPrefix(r.URL.Path, filesPrefix))
		return
	}
	rel, ok := apiPath(r.URL.Path)
	if !ok {
		s.writeError(rec, r, errf(http.StatusNotFound, CodeNotFound, "Cannot "+r.Method+" "+r.URL.Path))
		return
	}
	segs := split(rel)
	var allowed []string
	for _, rt := range routes {
		args, ok := match(rt.pattern, segs)
		if !ok {
			continue
		}
		if rt.method != r.Method {
			allowed = append(allowed, rt.method)
			continue
		}
		co, apiErr := s.authenticate(r)
		if apiErr != nil {
			s.writeError(rec, r, apiErr)
			return
		}
		if apiErr := s.limiter.allow(co.apiKey, rel == "/conversations/anomalies"); apiErr != nil {
			s.writeError(rec, r, apiErr)
			return
		}
		if tooLarge { // after 401 and 429: an unauthenticated request learns nothing
			s.writeError(rec, r, invalidParam("The request body is larger than 1 MiB."))
			return
		}
		if apiErr := normalizeQuery(r); apiErr != nil {
			s.writeError(rec, r, apiErr)
			return
		}
		s.log.Debug("fake: request", "method", r.Method, "path", r.URL.Path)
		rt.handle(s, rec, r, co, args)
		return
	}
	if len(allowed) > 0 {
		rec.Header().Set("Allow", strings.Join(allowed, ", "))
		s.writeError(rec, r, errf(http.StatusMethodNotAllowed, CodeMethodNotAllowed, "Method "+r.Method+" is not allowed on "+internalPath(r.URL.Path)+"."))
		return
	}
	s.writeError(rec, r, errf(http.StatusNotFound, CodeNotFound, "Cannot "+r.Method+" "+internalPath(r.URL.Path)))
}

// normalizeQuery parses the query string the way the service's stack does:
// pairs are separated by "&" only (a ";" is part of a value, where Go's
// url.ParseQuery would drop the whole pair), "+" is a space, and "%" escapes
// must be valid (else 400 INVALID_PARAM). The result replaces RawQuery, so
// that handlers read it with r.URL.Query().
func normalizeQuery(r *http.Request) *apiError {
	raw := r.URL.RawQuery
	if raw == "" || !strings.Contains(raw, ";") {
		if _, err := url.ParseQuery(raw); err != nil {
			return invalidParam("The query string is malformed.")
		}
		return nil
	}
	q := url.Values{}
	for _, pair := range strings.Split(raw, "&") {
		if pair == "" {
			continue
		}
		k, v, _ := strings.Cut(pair, "=")
		k, err1 := url.QueryUnescape(k)
		v, err2 := url.QueryUnescape(v)
		if err1 != nil || err2 != nil {
			return invalidParam("The query string is malformed.")
		}
		q[k] = append(q[k], v)
	}
	r.URL.RawQuery = q.Encode()
	return nil
}

// readBody reads up to maxBodyBytes of the body and puts it back for the
// handlers.
func readBody(r *http.Request) (body []byte, tooLarge bool) {
	if r.Body == nil || r.Body == http.NoBody {
		return nil, false
	}
	b, err := io.ReadAll(io.LimitReader(r.Body, maxBodyBytes+1))
	_ = r.Body.Close()
	if err != nil {
		b = nil
	}
	if len(b) > maxBodyBytes {
		return b[:maxBodyBytes], true
	}
	r.Body = io.NopCloser(bytes.NewReader(b))
	return b, false
}

// sleepCtx waits d of real time or until ctx ends; it reports whether the
// full delay elapsed.
func sleepCtx(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}
