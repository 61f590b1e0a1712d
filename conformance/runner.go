package conformance

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/convoapi/convo-go"
	"github.com/convoapi/convo-go/internal/recordredact"
)

// maxBody is the most of one answer a check reads.
const maxBody = 4 << 20

// authMode is how a request carries the key.
type authMode int

const (
	authBearer  authMode = iota // Authorization: Bearer KEY
	authAPIKey                  // Authorization: ApiKey KEY
	authXAPIKey                 // x-api-key: KEY
	authNone                    // no key at all (a bad-key request)
	authWrong                   // Authorization: Bearer <a key that is not the account's> (a bad-key request)
	authQuery                   // the key as api_key in the query, no header (a bad-key request)
	authOff                     // no key, and not an API request (a temporary file address)
)

func (a authMode) badKey() bool { return a == authNone || a == authWrong || a == authQuery }

// req is one request a check sends.
type req struct {
	method  string // "" is GET
	path    string // relative to the base URL ("/channels"), or an absolute URL with authOff
	query   url.Values
	body    any // JSON-encoded when not nil
	auth    authMode
	prefix  string // instead of the base URL's trailing /v1 (e.g. "/api/v1"); "" keeps it
	want429 bool   // a 429 is the answer sought (the rate-limit check), not a stop
}

// exchange is a request and its answer, read whole.
type exchange struct {
	method  string
	display string // "GET /v1/channels?limit=1", key redacted
	rel     string // the request's path relative to the base URL, as sent ("" for a file address)
	status  int
	header  http.Header
	body    []byte
	json    any // the body decoded (numbers as json.Number); nil when it is not JSON
}

// excerpt is the status and the beginning of the body, for a report.
func (ex *exchange) excerpt() string {
	b := ex.body
	const n = 300
	if len(b) > n {
		b = append(b[:n:n], "…"...)
	}
	return fmt.Sprintf("%d %s", ex.status, strings.TrimSpace(string(b)))
}

// data is the data object of a success envelope (nil when there is none).
func (ex *exchange) data() map[string]any {
	m, _ := ex.json.(map[string]any)
	d, _ := m["data"].(map[string]any)
	return d
}

// runner holds one run.
type runner struct {
	cfg     Config
	hc      *http.Client
	pacer   *pacer
	redact  *recordredact.Redactor
	base    *url.URL
	wrong   string // the wrong key of the bad-key check
	results []Result

	badKey       int
	anomalyCalls int
	stopped      string // why the run stopped (ctx), beside the pacer's 429

	d      discovered
	client *convo.Client // the SDK client of the sdk checks
}

func newRunner(cfg Config) *runner {
	base, _ := url.Parse(cfg.BaseURL)
	hc := &http.Client{}
	var next http.RoundTripper
	if cfg.HTTPClient != nil {
		*hc = *cfg.HTTPClient
		next = cfg.HTTPClient.Transport
	}
	p := newPacer(next, cfg.Pace, cfg.MaxRequests)
	hc.Transport = p
	hc.Jar = nil
	hc.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	return &runner{
		cfg: cfg, hc: hc, pacer: p, base: base,
		redact: recordredact.New(cfg.APIKey),
		wrong:  "convocheck-wrong-key-" + fmt.Sprint(time.Now().UnixNano()),
		d:      discovered{messages: map[string][]map[string]any{}, msgEx: map[string]*exchange{}, stamps: &stampLog{}},
	}
}

// url is the absolute URL of a path relative to the base URL (whose
// trailing /v1 is replaced by prefix when prefix is not "").
func (r *runner) url(path, prefix string, q url.Values) string {
	u := *r.base
	if prefix != "" {
		u.Path = strings.TrimSuffix(strings.TrimSuffix(u.Path, "/"), "/v1") + prefix
		u.RawPath = ""
	}
	u.Path = strings.TrimSuffix(u.Path, "/") + path
	u.RawPath = ""
	if i := strings.IndexByte(path, '%'); i >= 0 { // a path with escapes is sent as given
		u.RawPath = strings.TrimSuffix(u.EscapedPath(), "/") + path
		if p, err := url.PathUnescape(u.RawPath); err == nil {
			u.Path = p
		}
	}
	u.RawQuery = q.Encode()
	return u.String()
}

// do sends rq and reads the answer. When it cannot (budget, stop, transport
// error) it marks c (skip or fail) and returns false.
func (r *runner) do(ctx context.Context, c *check, rq req) (*exchange, bool) {
	if rq.auth.badKey() {
		if r.badKey >= MaxBadKeyRequests {
			c.skipf("the run sends at most %d requests with a bad key", MaxBadKeyRequests)
			return nil, false
		}
		r.badKey++
	}
	method := rq.method
	if method == "" {
		method = http.MethodGet
	}
	q := maps.Clone(rq.query)
	if q == nil {
		q = url.Values{}
	}
	if rq.auth == authQuery {
		q.Set("api_key", r.cfg.APIKey)
	}
	target := rq.path
	if rq.auth != authOff {
		target = r.url(rq.path, rq.prefix, q)
	}
	var body io.Reader
	var raw []byte
	if rq.body != nil {
		var err error
		if raw, err = json.Marshal(rq.body); err != nil {
			c.failf(nil, "encoding the request body: %v", err)
			return nil, false
		}
		body = bytes.NewReader(raw)
	}
	hr, err := http.NewRequestWithContext(ctx, method, target, body)
	if err != nil {
		c.failf(nil, "building the request: %s", r.redact.String(err.Error()))
		return nil, false
	}
	if raw != nil {
		hr.Header.Set("Content-Type", "application/json")
	}
	hr.Header.Set("User-Agent", "convocheck")
	switch rq.auth {
	case authBearer:
		hr.Header.Set("Authorization", "Bearer "+r.cfg.APIKey)
	case authAPIKey:
		hr.Header.Set("Authorization", "ApiKey "+r.cfg.APIKey)
	case authXAPIKey:
		hr.Header.Set("x-api-key", r.cfg.APIKey)
	case authWrong:
		hr.Header.Set("Authorization", "Bearer "+r.wrong)
	}
	ex := &exchange{method: method, display: r.redact.String(method + " " + displayURL(hr.URL, rq.auth == authOff))}
	if rq.auth != authOff {
		ex.rel = rq.path
	}
	resp, err := r.hc.Do(hr)
	if err != nil {
		var stop *stopError
		switch {
		case errors.Is(err, errBudget):
			c.skipf("the request budget (%d requests) is spent", r.cfg.MaxRequests)
		case errors.As(err, &stop):
			c.skipf("not sent: %s", stop.why)
		case ctx.Err() != nil:
			r.stopped = "the run's time is up or it was cancelled: " + ctx.Err().Error()
			c.skipf("not sent: %s", r.stopped)
		default:
			c.failf(ex, "the request failed: %s", r.redact.String(err.Error()))
		}
		return nil, false
	}
	defer resp.Body.Close()
	ex.status, ex.header = resp.StatusCode, resp.Header
	ex.body, err = io.ReadAll(io.LimitReader(resp.Body, maxBody))
	if err != nil {
		c.failf(ex, "reading the answer: %s", r.redact.String(err.Error()))
		return nil, false
	}
	ex.body = r.redact.Bytes(ex.body)
	if strings.Contains(resp.Header.Get("Content-Type"), "json") || json.Valid(ex.body) {
		dec := json.NewDecoder(bytes.NewReader(ex.body))
		dec.UseNumber()
		var v any
		if dec.Decode(&v) == nil {
			ex.json = v
		}
	}
	if resp.StatusCode == http.StatusTooManyRequests && !rq.want429 {
		c.skipf("the server answered 429: the run stops here")
		return nil, false
	}
	return ex, true
}

// displayURL is the request as a report shows it: the path and query
// relative to the host (the whole URL for a file address, without its
// query, which may be a secret).
func displayURL(u *url.URL, file bool) string {
	if file {
		return u.Scheme + "://" + u.Host + u.EscapedPath()
	}
	s := u.EscapedPath()
	if u.RawQuery != "" {
		s += "?" + u.RawQuery
	}
	return s
}

// get sends a GET with the key in the Bearer form.
func (r *runner) get(ctx context.Context, c *check, path string, q url.Values) (*exchange, bool) {
	return r.do(ctx, c, req{path: path, query: q})
}

// check is one check being made.
type check struct {
	id, title string
	basis     Basis
	spec      string // the sentence of the specification a BasisSpec check enforces
	fn        func(context.Context, *runner, *check)
	stamps    *stampLog // where the date-times it reads are noted

	reasons []string
	skip    string
	request string
	excerpt string
}

// failf records a failure; ex (may be nil) is the exchange that shows it.
func (c *check) failf(ex *exchange, format string, args ...any) {
	c.reasons = append(c.reasons, fmt.Sprintf(format, args...))
	if ex != nil && c.request == "" {
		c.request, c.excerpt = ex.display, ex.excerpt()
	}
}

// skipf marks the check skipped (unless it failed), with a reason.
func (c *check) skipf(format string, args ...any) {
	if c.skip == "" {
		c.skip = fmt.Sprintf(format, args...)
	}
}

func (c *check) failed() bool { return len(c.reasons) > 0 }

func (c *check) result() Result {
	res := Result{ID: c.id, Title: c.title, Basis: c.basis, Spec: c.spec}
	switch {
	case len(c.reasons) > 0:
		res.Status, res.Request, res.Excerpt = Fail, c.request, c.excerpt
		const most = 5
		rs := c.reasons
		if len(rs) > most {
			rs = append(rs[:most:most], fmt.Sprintf("and %d more", len(c.reasons)-most))
		}
		res.Reason = strings.Join(rs, "; ")
	case c.skip != "":
		res.Status, res.Reason = Skip, c.skip
	default:
		res.Status = Pass
	}
	return res
}

// run makes every check in order.
func (r *runner) run(ctx context.Context) error {
	plan := r.plan()
	for i, c := range plan {
		if why := r.stopReason(ctx); why != "" {
			for _, rest := range plan[i:] {
				rest.skipf("not run: %s", why)
				r.results = append(r.results, rest.result())
			}
			break
		}
		c.stamps = r.d.stamps
		c.fn(ctx, r, c)
		r.results = append(r.results, c.result())
		if c.id == authGateID && r.d.keyRefused {
			return cannotRun("the server refused the key in every form (401); check the key and the base URL")
		}
		if c.id == authGateID && r.d.unreachable != "" {
			return cannotRun("%s", r.d.unreachable)
		}
	}
	return nil
}

func (r *runner) stopReason(ctx context.Context) string {
	if why := r.pacer.stopReason(); why != "" {
		return why
	}
	if ctx.Err() != nil && r.stopped == "" {
		r.stopped = "the run's time is up or it was cancelled: " + ctx.Err().Error()
	}
	return r.stopped
}

func (r *runner) report(elapsed time.Duration) *Report {
	sent, writes := r.pacer.counts()
	rep := &Report{
		BaseURL: r.cfg.BaseURL, Mode: "read-only", Anomalies: r.cfg.Anomalies,
		Results: r.redactedResults(), Requests: sent, BadKeyRequests: r.badKey, AnomalyRequests: r.anomalyCalls,
		WriteRequests: writes, Elapsed: elapsed, RateLimitHeaders: map[string]string{},
		Stopped: r.pacer.stopReason(),
	}
	if rep.Stopped == "" {
		rep.Stopped = r.stopped
	}
	if r.cfg.Write != nil {
		rep.Mode = "write"
	}
	r.pacer.mu.Lock()
	for k, v := range r.pacer.headers {
		rep.RateLimitHeaders[r.redact.String(k)] = r.redact.String(v)
	}
	r.pacer.mu.Unlock()
	if len(rep.RateLimitHeaders) == 0 {
		rep.RateLimitHeaders = nil
	}
	rep.Stopped = r.redact.String(rep.Stopped)
	for _, res := range r.results {
		switch res.Status {
		case Pass:
			rep.Passed++
		case Fail:
			rep.Failed++
		case Skip:
			rep.Skipped++
		}
	}
	return rep
}

// redactedResults are the results with the key removed from every text a
// server's answer may have reached: a skip's reason quotes a Retry-After, a
// failure's reason a value.
func (r *runner) redactedResults() []Result {
	out := make([]Result, len(r.results))
	for i, res := range r.results {
		res.Title, res.Reason = r.redact.String(res.Title), r.redact.String(res.Reason)
		res.Request, res.Excerpt = r.redact.String(res.Request), r.redact.String(res.Excerpt)
		out[i] = res
	}
	return out
}

// plan lists the checks in the order they run: the key first (a run that
// cannot authenticate stops there), discovery, the reads, the errors, the
// anomaly report, the attachments, the writes, the layout of the times all
// of them read, the SDK, and last the check that spends the rate limit.
func (r *runner) plan() []*check {
	var all []*check
	for _, group := range [][]*check{
		authChecks(), channelChecks(), conversationChecks(), messageChecks(),
		attachmentChecks(), contactChecks(), errorChecks(), anomalyChecks(r.cfg.Anomalies),
		writeChecks(r.cfg.Write != nil), formatChecks(), sdkChecks(), rateLimitChecks(),
	} {
		all = append(all, group...)
	}
	return all
}
