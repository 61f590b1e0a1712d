package convo

import (
	"errors"
	"fmt"
	"log/slog"
	"math"
	"net"
	"net/http"
	"net/url"
	"os"
	"runtime"
	"strings"
	"time"

	"github.com/hashicorp/go-retryablehttp"
)

// Version is the SDK's version, sent in the User-Agent header.
const Version = "0.1.0"

// Environment variables read by NewClient when the matching option is absent.
const (
	EnvAPIKey  = "CONVO_API_KEY"
	EnvBaseURL = "CONVO_BASE_URL"
)

// Defaults of the client's options.
const (
	DefaultMaxRetries       = 3
	DefaultRetryWaitMin     = 500 * time.Millisecond
	DefaultRetryWaitMax     = 8 * time.Second
	DefaultMaxRetryWait     = 30 * time.Second
	DefaultMaxResponseBytes = 16 << 20
)

// AuthScheme selects which of the three equivalent authentication headers of
// spec §5 carries the API key. All three count the same toward the rate limit.
type AuthScheme int

const (
	// AuthBearer sends "Authorization: Bearer <key>" (the default).
	AuthBearer AuthScheme = iota
	// AuthAPIKey sends "Authorization: ApiKey <key>".
	AuthAPIKey
	// AuthXAPIKey sends "x-api-key: <key>".
	AuthXAPIKey
)

// String names the scheme as it appears on the wire.
func (s AuthScheme) String() string {
	switch s {
	case AuthBearer:
		return "Bearer"
	case AuthAPIKey:
		return "ApiKey"
	case AuthXAPIKey:
		return "x-api-key"
	}
	return fmt.Sprintf("AuthScheme(%d)", int(s))
}

// Client talks to the service. Build it with NewClient; it is safe for
// concurrent use and holds no global state.
type Client struct {
	// Channels lists the company's channel accounts (spec §4.5).
	Channels *ChannelsService
	// Conversations lists conversations (spec §4.3).
	Conversations *ConversationsService
	// Messages reads the messages of a conversation (spec §4.1).
	Messages *MessagesService
	// Anomalies reports conversations waiting for an answer (spec §4.4).
	Anomalies *AnomaliesService
	// Attachments exchanges media ids for temporary file addresses (spec §4.2).
	Attachments *AttachmentsService
	// Contacts manages chat-channel contacts (spec §4.6–§4.9).
	Contacts *ContactsService
	// Sequences cancels scheduled sequences (spec §4.10).
	Sequences *SequencesService

	base       string // scheme://host/.../v1, no trailing slash
	baseScheme string
	baseHost   string
	apiKey     string
	authScheme AuthScheme
	userAgent  string
	headers    http.Header // the headers every call sends, built once (see setHeaders)
	maxBody    int64
	maxWait    time.Duration
	maxRetries int
	keyForms   []string   // the forms of apiKey that redaction looks for
	gates      *rateGates // nil when WithRateLimitGate(false)
	logger     *slog.Logger
	insecure   bool // plain http allowed to non-loopback hosts

	rc    *retryablehttp.Client
	inner http.RoundTripper // the caller's transport, below our wrappers
	files *http.Client      // for attachment downloads: never carries the key
}

type settings struct {
	apiKey       string
	baseURL      string
	httpClient   *http.Client
	authScheme   AuthScheme
	maxRetries   int
	retryWaitMin time.Duration
	retryWaitMax time.Duration
	maxRetryWait time.Duration
	maxBody      int64
	logger       *slog.Logger
	userAgent    string
	insecureHTTP bool
	noGate       bool
	errs         []error
}

// Option configures a Client. Options compose: later ones override earlier ones.
type Option func(*settings)

// WithAPIKey sets the API key (spec §5). Without it, CONVO_API_KEY is used.
//
// The key is redacted from every error and log line the client writes, as
// is and in its JSON-, URL- and HTML-escaped forms. A key shorter than eight
// bytes (a test key) is redacted only where it stands alone, not glued to a
// letter or a digit, so that redacting it does not garble every word that
// happens to contain it.
func WithAPIKey(key string) Option { return func(s *settings) { s.apiKey = key } }

// WithBaseURL sets {base_url}, which must end with /v1 (spec §9). Without it,
// CONVO_BASE_URL is used; there is no default.
func WithBaseURL(u string) Option { return func(s *settings) { s.baseURL = u } }

// WithHTTPClient supplies the http.Client whose transport, timeout and cookie
// jar are used. The client is copied, never modified; its redirect policy is
// replaced by one that never follows a redirect to another host, so the key
// cannot leak.
func WithHTTPClient(hc *http.Client) Option {
	return func(s *settings) {
		if hc == nil {
			s.errs = append(s.errs, errors.New("WithHTTPClient: nil client"))
			return
		}
		s.httpClient = hc
	}
}

// WithAuthScheme selects the header that carries the key (spec §5); the
// default is AuthBearer.
func WithAuthScheme(scheme AuthScheme) Option {
	return func(s *settings) {
		if scheme < AuthBearer || scheme > AuthXAPIKey {
			s.errs = append(s.errs, fmt.Errorf("WithAuthScheme: unknown scheme %d", int(scheme)))
			return
		}
		s.authScheme = scheme
	}
}

// WithMaxRetries sets how many times a failed attempt is retried (default 3;
// 0 disables retries). Which failures are retried is described on Client.Do.
func WithMaxRetries(n int) Option {
	return func(s *settings) {
		if n < 0 {
			s.errs = append(s.errs, fmt.Errorf("WithMaxRetries: negative count %d", n))
			return
		}
		s.maxRetries = n
	}
}

// WithRetryWait bounds the jittered exponential backoff between attempts when
// the server does not say how long to wait (defaults 500ms and 8s).
func WithRetryWait(min, max time.Duration) Option {
	return func(s *settings) {
		if min < 0 || max < min {
			s.errs = append(s.errs, fmt.Errorf("WithRetryWait: need 0 <= min <= max, got %v and %v", min, max))
			return
		}
		s.retryWaitMin, s.retryWaitMax = min, max
	}
}

// WithMaxRetryWait caps a wait asked by the server through Retry-After
// (default 30s). When the server asks for longer, the call returns the typed
// 429 (or 503) error at once, with Error.RetryAfter set, instead of sleeping.
func WithMaxRetryWait(d time.Duration) Option {
	return func(s *settings) {
		if d < 0 {
			s.errs = append(s.errs, fmt.Errorf("WithMaxRetryWait: negative duration %v", d))
			return
		}
		s.maxRetryWait = d
	}
}

// WithMaxResponseBytes caps how much of a response body is read (default
// 16 MiB). A larger body fails with ErrResponseTooLarge.
func WithMaxResponseBytes(n int64) Option {
	return func(s *settings) {
		if n <= 0 {
			s.errs = append(s.errs, fmt.Errorf("WithMaxResponseBytes: need a positive size, got %d", n))
			return
		}
		s.maxBody = n
	}
}

// WithRateLimitGate turns the client's rate-limit gate on (the default) or
// off. When the service answers 429 with a Retry-After, the gate holds every
// new request of the whole Client (every goroutine) until that time, so the
// service hears nothing from this client during the wait it asked for,
// instead of one more 429 per goroutine. A call held by the gate waits only
// as long as its context and its maximum retry wait allow: when either would
// end first, it returns the typed 429 (errors.Is ErrRateLimited, RetryAfter
// set to what is left of the wait) at once, without a request. The anomaly
// report has a rate limit of its own, hence a gate of its own: its 429s hold
// only anomaly calls. Off, each call meets and waits out its own 429s, as if
// alone.
func WithRateLimitGate(on bool) Option { return func(s *settings) { s.noGate = !on } }

// WithLogger makes the client write one debug record per attempt: method,
// path, status, attempt and duration. Header values and query values are never
// logged (the key is a secret; phone numbers are personal data).
func WithLogger(l *slog.Logger) Option { return func(s *settings) { s.logger = l } }

// WithUserAgent appends a product token to the User-Agent header, which always
// starts with "convo-go/<version> go/<runtime version>".
func WithUserAgent(ua string) Option { return func(s *settings) { s.userAgent = ua } }

// WithInsecureHTTP allows a plain http:// base URL on a host that is not
// loopback. Without it such a URL is refused, because the key would travel in
// clear text. Loopback addresses (the fake) never need it. It also lets
// Attachments.Download fetch a file from a plain http:// address on a host
// that is not loopback (such a request never carries the key).
func WithInsecureHTTP() Option { return func(s *settings) { s.insecureHTTP = true } }

// NewClient builds a client. It fails when there is no API key (a request
// never leaves without one), no base URL (there is no default), a base URL
// that does not end with /v1, or a plain http:// URL to a
// host that is not loopback without WithInsecureHTTP.
func NewClient(opts ...Option) (*Client, error) {
	s := settings{
		maxRetries:   DefaultMaxRetries,
		retryWaitMin: DefaultRetryWaitMin,
		retryWaitMax: DefaultRetryWaitMax,
		maxRetryWait: DefaultMaxRetryWait,
		maxBody:      DefaultMaxResponseBytes,
	}
	for _, o := range opts {
		if o != nil {
			o(&s)
		}
	}
	if len(s.errs) > 0 {
		return nil, fmt.Errorf("convo: %w", errors.Join(s.errs...))
	}
	if s.apiKey == "" {
		s.apiKey = os.Getenv(EnvAPIKey)
	}
	if s.baseURL == "" {
		s.baseURL = os.Getenv(EnvBaseURL)
	}
	if strings.TrimSpace(s.apiKey) == "" {
		return nil, fmt.Errorf("convo: no API key: use WithAPIKey or set %s", EnvAPIKey)
	}
	if !validHeaderValue(s.apiKey) {
		// The key itself is never quoted: this error may be logged.
		return nil, errors.New("convo: the API key contains a control character (a line break?)")
	}
	if !validHeaderValue(s.userAgent) {
		return nil, errors.New("convo: WithUserAgent: the product token contains a control character")
	}
	base, host, err := checkBaseURL(s.baseURL, s.insecureHTTP)
	if err != nil {
		return nil, err
	}
	scheme, _, _ := strings.Cut(base, "://")

	c := &Client{
		base:       base,
		baseScheme: scheme,
		baseHost:   host,
		apiKey:     s.apiKey,
		authScheme: s.authScheme,
		maxBody:    s.maxBody,
		maxWait:    s.maxRetryWait,
		maxRetries: s.maxRetries,
		keyForms:   keyForms(s.apiKey),
		logger:     s.logger,
		insecure:   s.insecureHTTP,
		userAgent:  "convo-go/" + Version + " go/" + runtime.Version(),
	}
	if !s.noGate {
		c.gates = new(rateGates)
	}
	if ua := strings.TrimSpace(s.userAgent); ua != "" {
		c.userAgent += " " + ua
	}
	c.headers = c.fixedHeaders(c.apiKey)
	c.buildTransport(s)
	c.Channels = &ChannelsService{c}
	c.Conversations = &ConversationsService{c}
	c.Messages = &MessagesService{c}
	c.Anomalies = &AnomaliesService{c}
	c.Attachments = &AttachmentsService{c}
	c.Contacts = &ContactsService{c}
	c.Sequences = &SequencesService{c}
	return c, nil
}

// buildTransport assembles the retrying client around the caller's transport:
// retryablehttp → http.Client (same-host redirects only) → attempt logger →
// the caller's RoundTripper.
func (c *Client) buildTransport(s settings) {
	var hc http.Client
	if s.httpClient != nil {
		hc = *s.httpClient
	}
	c.inner = hc.Transport
	if c.inner == nil {
		c.inner = http.DefaultTransport
	}
	// The wrapper has no CloseIdleConnections method on purpose: retryablehttp
	// calls it whenever retries run out, which would throw away the pool.
	hc.Transport = &attemptTransport{next: c.inner, logger: c.logger, redact: c.redactCall, gates: c.gates}
	hc.CheckRedirect = c.checkRedirect
	c.rc = &retryablehttp.Client{
		HTTPClient:   &hc,
		Logger:       nil, // its default writes to stderr; we log per attempt ourselves
		RetryWaitMin: s.retryWaitMin,
		RetryWaitMax: s.retryWaitMax,
		RetryMax:     math.MaxInt32, // the budget is per call: checkRetry enforces it
		CheckRetry:   c.checkRetry,
		Backoff:      c.backoff,
		ErrorHandler: keepLastResponse,
	}
	// Downloads go to the temporary file host: same transport, no key, no
	// cookie jar (cookies scoped to a shared parent domain must not follow),
	// no client-wide timeout (it would cut large files; the context governs),
	// and no redirect at all (it could bounce through a host we do not know).
	files := hc
	files.Transport = c.inner
	files.Jar = nil
	files.Timeout = 0
	files.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	c.files = &files
}

// checkRedirect follows a redirect only to the API's own scheme and host,
// where the authentication header is expected; anything else (another host,
// or the same host over plain http, which would carry the key in clear text)
// is returned as is, and surfaces as an *Error with the 3xx status.
func (c *Client) checkRedirect(req *http.Request, via []*http.Request) error {
	if req.URL.Scheme != c.baseScheme || req.URL.Host != c.baseHost || len(via) >= 5 {
		return http.ErrUseLastResponse
	}
	return nil
}

// validHeaderValue reports whether s can travel in an HTTP header: no control
// character other than a tab (RFC 9110 §5.5). Checked at construction, so that
// a bad key or product token fails there rather than on every call.
func validHeaderValue(s string) bool {
	for i := 0; i < len(s); i++ {
		if b := s[i]; (b < 0x20 && b != '\t') || b == 0x7f {
			return false
		}
	}
	return true
}

// String describes the client without its API key: printing or logging a
// Client or a *Client (%v, %+v, slog.Any) never reveals the key. It has a
// value receiver so that a dereferenced Client is covered too.
func (c Client) String() string {
	return fmt.Sprintf("convo.Client{BaseURL: %q, AuthScheme: %s, APIKey: [REDACTED]}", c.base, c.authScheme)
}

// GoString is String, so that %#v does not reveal the API key either.
func (c Client) GoString() string { return c.String() }

// CloseIdleConnections closes the idle connections of the underlying
// transport, if it supports that. Without WithHTTPClient that transport is
// http.DefaultTransport, shared with the rest of the program. The client never
// calls it on its own: giving up on a call keeps the pool.
func (c *Client) CloseIdleConnections() {
	if ci, ok := c.inner.(interface{ CloseIdleConnections() }); ok {
		ci.CloseIdleConnections()
	}
}

// BaseURL returns {base_url}, ending with /v1.
func (c *Client) BaseURL() string { return c.base }

func checkBaseURL(raw string, insecure bool) (base, host string, err error) {
	if raw == "" {
		return "", "", fmt.Errorf("convo: no base URL: use WithBaseURL or set %s", EnvBaseURL)
	}
	u, err := url.Parse(raw)
	if err != nil {
		// url.Parse's error quotes the whole URL, credentials included.
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return "", "", fmt.Errorf("convo: invalid base URL: %w", err)
	}
	if u.Scheme != "https" && u.Scheme != "http" {
		return "", "", fmt.Errorf("convo: base URL %q: scheme must be https or http", redactURL(u))
	}
	if u.Host == "" {
		return "", "", fmt.Errorf("convo: base URL %q has no host", redactURL(u))
	}
	if u.User != nil || u.RawQuery != "" || u.Fragment != "" {
		return "", "", fmt.Errorf("convo: base URL %q must not carry credentials, a query or a fragment", redactURL(u))
	}
	// The escaped form, so that a prefix such as /a%2Fb/v1 is kept as written.
	path := strings.TrimRight(u.EscapedPath(), "/")
	if !strings.HasSuffix(path, "/v1") {
		return "", "", fmt.Errorf("convo: base URL %q must end with /v1 (spec §9)", redactURL(u))
	}
	if u.Scheme == "http" && !insecure && !isLoopback(u.Hostname()) {
		return "", "", fmt.Errorf("convo: base URL %q uses plain http to a host that is not loopback; use https, or WithInsecureHTTP", redactURL(u))
	}
	return u.Scheme + "://" + u.Host + path, u.Host, nil
}

func redactURL(u *url.URL) string {
	v := *u
	v.User, v.RawQuery, v.Fragment = nil, "", ""
	return v.String()
}

func isLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
