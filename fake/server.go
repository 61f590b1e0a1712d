package fake

import (
	"context"
	"crypto/rand"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// DefaultAPIKey is the API key of the default company unless [WithAPIKey]
// gives another.
const DefaultAPIKey = "fake-api-key"

// Defaults of the options.
const (
	DefaultRateLimit       = 1000.0          // requests per second per key: ordinary tests never hit it
	DefaultRateBurst       = 1000            // bucket size of the default rate limit
	DefaultAnomalyCacheTTL = 5 * time.Minute // docs/behaviour.md, "Anomaly report": a few minutes
	DefaultAttachmentTTL   = 15 * time.Minute
	DefaultJournalLimit    = 10000
	DefaultJournalBytes    = 32 << 20 // bytes of the journal's budget: 32 MiB
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
	files     *fileGrants // the temporary attachment URLs given
	loadNow   time.Time   // while a seed loads: the now of its times and defaults
	// allowFuture: while a seed company loads, its messages may be dated
	// after loadNow (CompanySeed.AllowFuture).
	allowFuture bool

	clock      *Clock
	errIDs     *errorIDs
	cursorKey  []byte
	log        *slog.Logger
	publicBase string // WithPublicURL: scheme://host[/prefix] of attachment URLs

	limiter  *limiter
	faults   faultSet
	journal  journal
	keys     atomic.Pointer[keySet] // the last set of every company's key (companyKeys)
	times    timeCache              // the last Date header and timestamp made
	ts       *httptest.Server
	mem      *pipeNet // WithInMemoryNetwork: the server behind Client and HTTPClient
	cfg      config
	startNow time.Time // the clock's reading once the server started, for Reset
	startDoc *seedDoc  // the seed of WithSeed, in JSON, for Reset
	closeOne sync.Once

	shortcutsOff shortcut // the shortcuts left out (tests)
}

type config struct {
	shortcutsOff   shortcut // tests: the shortcuts to leave out (withShortcutsOff)
	apiKey         string
	clock          *Clock
	limit          limitConfig
	anomalyCalls   int
	anomalyPer     time.Duration
	anomalyTTL     time.Duration
	attachmentTTL  time.Duration
	seed           *Seed
	seedDoc        []byte      // WithSeedDocument: the document seed was decoded from
	seedEdit       func(*Seed) // and what the caller changed in it since
	logger         *slog.Logger
	publicURL      string
	journalLimit   int
	journalLimitOK bool
	journalBytes   int64
	inMemory       bool
	readableIDs    bool
	defaultID      string
	middleware     []func(http.Handler) http.Handler
}

// Option configures a [Server].
type Option func(*config)

// WithClock makes the server read time from c, typically a
// [NewManualClock]. Default: a real clock.
func WithClock(c *Clock) Option { return func(cfg *config) { cfg.clock = c } }

// WithAPIKey sets the API key of the default company (default [DefaultAPIKey]).
func WithAPIKey(key string) Option { return func(cfg *config) { cfg.apiKey = key } }

// WithAnomalyRateLimit gives the anomalies endpoint its own limit per key
// (docs/behaviour.md, "Rate limits and retries": set for about one pass per day): calls requests per period,
// e.g. WithAnomalyRateLimit(1, 24*time.Hour). Off by default.
func WithAnomalyRateLimit(calls int, per time.Duration) Option {
	return func(cfg *config) { cfg.anomalyCalls, cfg.anomalyPer = calls, per }
}

// WithAnomalyCacheTTL sets how long an anomaly report stays cached per
// company and bucket (docs/behaviour.md, "Anomaly report"). Default [DefaultAnomalyCacheTTL]; 0
// disables the cache.
func WithAnomalyCacheTTL(d time.Duration) Option { return func(cfg *config) { cfg.anomalyTTL = d } }

// WithAttachmentTTL sets how long a temporary attachment URL stays valid
// (getAttachment, GET /attachments/{media_id}). Default [DefaultAttachmentTTL].
func WithAttachmentTTL(d time.Duration) Option { return func(cfg *config) { cfg.attachmentTTL = d } }

// WithReadableIDs lets Go seeding and [Server.Load] give channel accounts,
// webchat widgets, contacts and conversations any id ("acc-1", "c-1")
// instead of a UUID, for tests that read better so. The server then shows
// ids that are not UUIDs, unlike the service (api/openapi.yaml: format
// uuid), so a client that checks formats will refuse them. [LoadSeed]
// checks a document as a server without this option would.
func WithReadableIDs() Option { return func(cfg *config) { cfg.readableIDs = true } }

// WithDefaultCompanyID sets the id of the default company (default a new
// UUID), e.g. the companies[0].id of an export, so that a server restarted
// from its saved state keeps the id its tenants' tools know. A seed's first
// company never changes it.
func WithDefaultCompanyID(id string) Option { return func(cfg *config) { cfg.defaultID = id } }

// WithSeed loads seed at start (see [Server.Load]). When the seed has a now
// and no [WithClock] is given, the server runs on a manual clock frozen at it.
// The server keeps a compact JSON copy of the seed for [Server.Reset], not
// seed itself: changing seed afterwards changes nothing, and a big seed is
// not held twice.
func WithSeed(seed *Seed) Option {
	return func(cfg *config) { cfg.seed, cfg.seedDoc, cfg.seedEdit = seed, nil, nil }
}

// WithSeedDocument is [WithSeed] for a seed decoded from a document the
// caller holds: seed is what [DecodeSeedBytes] made of doc, then changed by
// edit (nil: not changed). The server keeps doc itself, not a JSON copy of
// seed, for [Server.Reset], which decodes it and runs edit on it again.
// Encoding the seed would cost about as much as loading it (a state file
// of 100,000 messages is 23 MB of JSON), and edit keeps the caller's
// changes (cmd/convofake's API key, a clock flag) in what Reset brings
// back. doc must not change afterwards; edit must make the same changes
// each time.
func WithSeedDocument(seed *Seed, doc []byte, edit func(*Seed)) Option {
	return func(cfg *config) { cfg.seed, cfg.seedDoc, cfg.seedEdit = seed, doc, edit }
}

// WithLogger logs every request at debug level and seeding problems at warn
// level. Default: nothing is logged.
func WithLogger(l *slog.Logger) Option { return func(cfg *config) { cfg.logger = l } }

// WithPublicURL sets the scheme, host and optional path prefix under which
// the server is reachable, e.g. "https://fake.example.com/convo", for the
// temporary attachment URLs. Default: the server's own listener, or for a
// handler mounted elsewhere the local address each request came in on;
// never the request's Host header. Set it when the handler is mounted under
// a prefix or behind a proxy.
func WithPublicURL(base string) Option { return func(cfg *config) { cfg.publicURL = base } }

// WithJournalLimit bounds the request journal to the last n requests
// (default [DefaultJournalLimit]; 0 disables the journal). The byte budget
// of [WithJournalBytes] applies as well.
func WithJournalLimit(n int) Option {
	return func(cfg *config) { cfg.journalLimit, cfg.journalLimitOK = n, true }
}

// WithJournalBytes bounds the memory of the request journal to about n
// bytes (default [DefaultJournalBytes]; 0 disables the journal): the oldest
// requests are forgotten first, and a body is kept up to 64 KiB (less when n
// is small), then cut with a marker (see [Request.Body]). A request counts
// as received, before its keys are redacted. The entry limit of
// [WithJournalLimit] applies as well.
func WithJournalBytes(n int64) Option { return func(cfg *config) { cfg.journalBytes = n } }

// WithHandlerMiddleware wraps the server's HTTP handler in mw, e.g. to log
// or to validate every request the server receives and every answer it
// gives. It applies wherever the server answers: its own listener, the
// in-memory network and [Server.Handler]. Given more than once, the first is
// the outermost (it sees each request first).
func WithHandlerMiddleware(mw func(http.Handler) http.Handler) Option {
	return func(cfg *config) {
		if mw != nil {
			cfg.middleware = append(cfg.middleware, mw)
		}
	}
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
		limit:         limitConfig{kind: limitBucket, rate: DefaultRateLimit, burst: DefaultRateBurst},
		anomalyTTL:    DefaultAnomalyCacheTTL,
		attachmentTTL: DefaultAttachmentTTL,
		journalLimit:  DefaultJournalLimit,
		journalBytes:  DefaultJournalBytes,
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
		clock:        clock,
		errIDs:       newErrorIDs(),
		cursorKey:    key,
		log:          logger,
		publicBase:   strings.TrimSuffix(cfg.publicURL, "/"),
		cfg:          cfg,
		shortcutsOff: cfg.shortcutsOff,
	}
	s.limiter = newLimiter(clock, cfg.limit, cfg.anomalyCalls, cfg.anomalyPer)
	s.journal.limit, s.journal.maxBytes = cfg.journalLimit, cfg.journalBytes
	s.resetLocked()
	var err error
	if cfg.seed != nil {
		err = s.loadStart(cfg.seed, cfg.seedDoc, cfg.seedEdit)
		s.cfg.seed, s.cfg.seedDoc, s.cfg.seedEdit = nil, nil, nil
	}
	s.startNow = clock.Now()
	switch {
	case listen && cfg.inMemory:
		s.mem = startPipeNet(s.Handler())
	case listen:
		s.ts = newLoopbackServer(s.Handler())
	}
	return s, err
}

func newLoopbackServer(h http.Handler) *httptest.Server {
	ts := httptest.NewUnstartedServer(h)
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
		if s.mem != nil {
			s.mem.shutdown()
		}
	})
}

// URL returns the base URL of the API, ending in /v1 (docs/behaviour.md,
// "Connecting"), e.g.
// http://127.0.0.1:40123/v1. It is "" for a server built by [NewHandler].
func (s *Server) URL() string {
	switch {
	case s.mem != nil:
		return "http://" + inMemoryAddr + "/v1"
	case s.ts == nil:
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
// your own. It serves /v1/..., /api/v1/... and the temporary
// attachment URLs under /_files/, wrapped by [WithHandlerMiddleware].
func (s *Server) Handler() http.Handler {
	var h http.Handler = s
	for i := len(s.cfg.middleware) - 1; i >= 0; i-- {
		h = s.cfg.middleware[i](h)
	}
	return h
}

// HTTPClient returns an *http.Client suitable for the server (the listener's
// own client); plain http.DefaultClient works too, except with
// [WithInMemoryNetwork], where only this client reaches the server.
func (s *Server) HTTPClient() *http.Client {
	switch {
	case s.mem != nil:
		return &http.Client{Transport: s.mem.transport}
	case s.ts == nil:
		return http.DefaultClient
	}
	return s.ts.Client()
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
