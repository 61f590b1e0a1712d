package convo

import (
	"cmp"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/convoapi/convo-go/internal/netx"
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
	DefaultMaxRetries       = 5
	DefaultRetryWaitMin     = 500 * time.Millisecond
	DefaultRetryWaitMax     = 8 * time.Second
	DefaultMaxRetryWait     = 30 * time.Second
	DefaultMaxResponseBytes = 16 << 20
)

// AuthScheme selects which of the three equivalent authentication headers of
// docs/behaviour.md, Connecting carries the API key. All three count the same toward the rate limit.
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
	// Channels lists the company's channel accounts (OpenAPI listChannels).
	Channels *ChannelsService
	// Conversations lists conversations (OpenAPI listConversations).
	Conversations *ConversationsService
	// Messages reads the messages of a conversation (OpenAPI listMessages).
	Messages *MessagesService
	// Anomalies reports conversations waiting for an answer (OpenAPI getAnomalies).
	Anomalies *AnomaliesService
	// Attachments exchanges media ids for temporary file addresses (OpenAPI getAttachment).
	Attachments *AttachmentsService
	// Contacts manages chat-channel contacts (OpenAPI createContact,
	// lookupContact, updateContactCustomFields, removeContactTags).
	Contacts *ContactsService
	// Sequences cancels scheduled sequences (OpenAPI cancelSequence).
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
	timeout    time.Duration // WithTimeout given to NewClient; 0: none
	middleware []Middleware
	trace      *Trace
	retiring   *sync.Map   // routes whose retirement was logged (a pointer: a Client is printed by value)
	extra      http.Header // WithHeader given to NewClient
	key        *keyMatcher // finds apiKey in any escaped form, for redaction
	limit      *pacer      // paces every call (WithRateLimiter); nil: off
	// anomalyHold holds anomaly report calls for the Retry-After of its
	// own limit (about one pass a day), which must not hold anything else.
	anomalyHold  *pacer
	logger       *slog.Logger
	insecure     bool // plain http allowed to non-loopback hosts
	retryWaitMin time.Duration
	retryWaitMax time.Duration

	hc    http.Client       // the template of every API call's client: redirects, jar, timeout
	files http.Client       // that of every download: no key, no jar, no redirect
	next  http.RoundTripper // the stall timeout around inner
	inner http.RoundTripper // the caller's transport, below our wrappers
}

// WithBaseURL sets {base_url}, which must end with /v1. Without it,
// CONVO_BASE_URL is used; there is no default. Applies to NewClient.
func WithBaseURL(u string) Option {
	return func(c *config) {
		if c.in("WithBaseURL", scopeClient) {
			c.baseURL = u
		}
	}
}

// WithHTTPClient supplies the http.Client whose transport, timeout and cookie
// jar are used. The client is copied, never modified; its redirect policy is
// replaced by one that never follows a redirect to another host, so the key
// cannot leak. Applies to NewClient.
func WithHTTPClient(hc *http.Client) Option {
	return func(c *config) {
		switch {
		case !c.in("WithHTTPClient", scopeClient):
		case hc == nil:
			c.fail("WithHTTPClient: nil client")
		default:
			c.httpClient = hc
		}
	}
}

// WithAuthScheme selects the header that carries the key; the default is
// AuthBearer. Applies to NewClient.
func WithAuthScheme(scheme AuthScheme) Option {
	return func(c *config) {
		switch {
		case !c.in("WithAuthScheme", scopeClient):
		case scheme < AuthBearer || scheme > AuthXAPIKey:
			c.fail("WithAuthScheme: unknown scheme %d", int(scheme))
		default:
			c.authScheme = scheme
		}
	}
}

// WithRetryWait bounds the jittered exponential backoff between attempts when
// the server does not say how long to wait (defaults 500ms and 8s). Applies
// to NewClient.
func WithRetryWait(min, max time.Duration) Option {
	return func(c *config) {
		switch {
		case !c.in("WithRetryWait", scopeClient):
		case min < 0 || max < min:
			c.fail("WithRetryWait: need 0 <= min <= max, got %v and %v", min, max)
		default:
			c.retryWaitMin, c.retryWaitMax = min, max
		}
	}
}

// WithMaxResponseBytes caps how much of a response body is read (default
// 16 MiB). A larger body fails with ErrResponseTooLarge. Applies to
// NewClient.
func WithMaxResponseBytes(n int64) Option {
	return func(c *config) {
		switch {
		case !c.in("WithMaxResponseBytes", scopeClient):
		case n <= 0:
			c.fail("WithMaxResponseBytes: need a positive size, got %d", n)
		default:
			c.maxBody = n
		}
	}
}

// WithLogger makes the client write one debug record per attempt: method,
// path, status, attempt and duration. Header values and query values are never
// logged (the key is a secret; phone numbers are personal data). Applies to
// NewClient.
func WithLogger(l *slog.Logger) Option {
	return func(c *config) {
		if c.in("WithLogger", scopeClient) {
			c.logger = l
		}
	}
}

// WithUserAgent appends a product token to the User-Agent header, which always
// starts with "convo-go/<version> go/<runtime version>". Applies to
// NewClient.
func WithUserAgent(ua string) Option {
	return func(c *config) {
		switch {
		case !c.in("WithUserAgent", scopeClient):
		case !validHeaderValue(ua):
			c.fail("WithUserAgent: the product token contains a control character")
		default:
			c.userAgent = ua
		}
	}
}

// WithInsecureHTTP allows a plain http:// base URL on a host that is not
// loopback. Without it such a URL is refused, because the key would travel in
// clear text. Loopback addresses (the fake) never need it. It also lets
// Attachments.Download fetch a file from a plain http:// address on a host
// that is not loopback (such a request never carries the key). Applies to
// NewClient.
func WithInsecureHTTP() Option {
	return func(c *config) {
		if c.in("WithInsecureHTTP", scopeClient) {
			c.insecureHTTP = true
		}
	}
}

// NewClient builds a client. It fails when there is no API key (a request
// never leaves without one), no base URL (there is no default), a base URL
// that does not end with /v1, or a plain http:// URL to a
// host that is not loopback without WithInsecureHTTP.
func NewClient(opts ...Option) (*Client, error) {
	s := config{
		scope:        scopeClient,
		maxRetries:   DefaultMaxRetries,
		retryWaitMin: DefaultRetryWaitMin,
		retryWaitMax: DefaultRetryWaitMax,
		maxRetryWait: DefaultMaxRetryWait,
		maxBody:      DefaultMaxResponseBytes,
	}
	if err := s.apply(opts); err != nil {
		return nil, err
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
		timeout:    s.timeout,
		middleware: s.middleware,
		trace:      s.trace,
		retiring:   new(sync.Map),
		key:        newKeyMatcher(s.apiKey),
		logger:     s.logger,
		insecure:   s.insecureHTTP,
		userAgent:  "convo-go/" + Version + " go/" + runtime.Version(),
	}
	if s.limiter == nil {
		s.limiter = AdaptiveRate()
	}
	c.limit, c.anomalyHold = newPacer(s.limiter), newPacer(newHoldLimiter())
	c.retryWaitMin, c.retryWaitMax = s.retryWaitMin, s.retryWaitMax
	for _, ua := range []string{s.userAgent, s.header.Get("User-Agent")} {
		if ua = strings.TrimSpace(ua); ua != "" {
			c.userAgent += " " + ua
		}
	}
	if s.header != nil {
		c.extra = s.header
		c.extra.Del("User-Agent") // appended to the product tokens above
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

// buildTransport sets the clients every call copies: an API call's sends
// through the caller's http.Client settings (same-host redirects only), a
// download's carries no key, no cookie and follows no redirect; both reach
// the caller's transport through the stall timeout.
func (c *Client) buildTransport(s config) {
	if s.httpClient != nil {
		c.hc = *s.httpClient
	}
	c.inner = c.hc.Transport
	if c.inner == nil {
		c.inner = defaultTransport()
	}
	c.next = c.inner
	if limit := s.stallTimeout; limit > 0 || !s.stallSet {
		c.next = &stallTransport{next: c.inner, limit: cmp.Or(limit, DefaultStallTimeout)}
	}
	c.hc.CheckRedirect = c.checkRedirect
	// Downloads go to the temporary file host: no cookie jar (cookies scoped
	// to a shared parent domain must not follow), no client-wide timeout (it
	// would cut large files; the context governs), and no redirect at all (it
	// could bounce through a host we do not know).
	c.files = c.hc
	c.files.Jar = nil
	c.files.Timeout = 0
	c.files.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
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
// the package's default one, shared by every client built without it. The client never
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
		return "", "", fmt.Errorf("convo: base URL %q must end with /v1 (docs/behaviour.md, Connecting)", redactURL(u))
	}
	if u.Scheme == "http" && !insecure && !netx.IsLoopback(u.Hostname()) {
		return "", "", fmt.Errorf("convo: base URL %q uses plain http to a host that is not loopback; use https, or WithInsecureHTTP", redactURL(u))
	}
	return u.Scheme + "://" + u.Host + path, u.Host, nil
}

func redactURL(u *url.URL) string {
	v := *u
	v.User, v.RawQuery, v.Fragment = nil, "", ""
	return v.String()
}
