// Package conformance checks that a server answers as the conversational
// messaging service does: the real service, our fake (package fake,
// cmd/convofake), or anything that claims to be either.
//
// [Run] sends raw HTTP requests and checks, at the wire, every rule a client
// can observe on the server's data: envelopes and timestamps, field types,
// enums and nulls, ordering, pagination and cursors, filters and bounds,
// error codes and texts, the three key forms, keys that must be refused,
// unknown paths, the anomaly report and attachments. It then reads the same
// data through the SDK (package convo) and checks that it decodes. Each
// check passes, fails (with the request and an excerpt of the answer) or is
// skipped with a reason when the server's data cannot show what it checks.
//
// # What it sends
//
// By default it only reads: GET requests, at most [DefaultMaxRequests] of
// them, one every [DefaultPace], at most 3 of them with a missing or wrong
// key, and one anomaly report. It stops at the first 429 and never tries
// to reach the rate limit. [Config.Anomalies] runs the full anomaly checks
// (about a dozen reports: bounds, an unknown bucket, opt-in buckets, the
// cache) for servers where that is fine, such as the fake; the service
// intends the report for about one pass a day. [Config.Write] adds writes on
// one contact the caller names (contact creation, custom fields, tag removal,
// sequence cancel); the service has no delete, so that contact, its custom
// field and its state stay behind. [Config.SpendRateLimit], for fakes only,
// sends requests until a 429 to check that the three key forms count alike.
//
// # Labels
//
// Each check says where its rule comes from ([Result.Basis]): "spec" when
// the service's interface specification states it ([Result.Spec] quotes
// the sentence), "decision" when the specification leaves the point open
// and docs/behaviour.md decides it, "sdk" for the Go SDK's own checks. A
// failed spec check against the real service means the service contradicts
// its specification (or our reading of it); a failed decision check, that
// our choice for an open point is wrong.
//
// The API key is sent only in the request headers of the base URL's host
// (and once in a query string, to check that the server refuses it there),
// and never appears in a report.
//
// # Recordings
//
// A [Recorder] records a client's exchanges as JSON lines (a cassette),
// with the key removed and each answer bounded; [Replay] sends a
// recording's requests to another server and reports every difference
// (moving a fake's clock to each exchange's recorded time with
// [ReplayConfig.SetClock], or comparing what a server computes from its
// clock or its cache by a stated rule); [SeedFromRecording] turns a
// recording, partial ones included, into a seed document of package fake,
// so that a fake answers as the recorded server did. The command
// convocheck does the same for clients in any language: convocheck record
// (a recording proxy), convocheck seed, convocheck --replay.
package conformance

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/convoapi/convo-go/internal/netx"
)

// Limits a run keeps to unless its [Config] says otherwise.
const (
	// DefaultMaxRequests is the request budget of a run: against the demo
	// data a full run (with the anomaly checks) sends about 150.
	DefaultMaxRequests = 400
	// DefaultPace is the least time between two requests: at most 5
	// requests a second.
	DefaultPace = 200 * time.Millisecond
	// DefaultTimeout bounds a whole run.
	DefaultTimeout = 5 * time.Minute
	// MaxBadKeyRequests is the most requests a run sends with a missing or
	// wrong key, or with the key outside the headers.
	MaxBadKeyRequests = 3
)

// Config says which server to check and how.
type Config struct {
	// BaseURL is the API's base address, ending in /v1.
	BaseURL string
	// APIKey is the key of the account to check. It is never printed.
	APIKey string
	// HTTPClient sends the requests; nil: a client of its own. Its
	// Transport is wrapped by the run's pacing and budget.
	HTTPClient *http.Client
	// Write, when not nil, lets the run write on the contact it names.
	// nil: the run only reads.
	Write *WriteTargets
	// Anomalies runs the full anomaly checks (about a dozen reports).
	// Without it a run asks for one anomaly report.
	Anomalies bool
	// MaxRequests is the request budget; 0: [DefaultMaxRequests]. Checks
	// the budget cannot pay for are skipped.
	MaxRequests int
	// Pace is the least time between two requests; 0: [DefaultPace],
	// negative: no pacing (for a server in the same process).
	Pace time.Duration
	// Timeout bounds the whole run; 0: [DefaultTimeout].
	Timeout time.Duration
	// AllowInsecureHTTP allows a plain http:// base URL on a host other
	// than loopback, which sends the key in the clear.
	AllowInsecureHTTP bool
	// CustomFields, when not nil, reads a contact's custom fields by its
	// id, which the API does not show: with it and Write, the run checks
	// that custom fields are merged, not replaced. A fake can give it
	// ([ConvofakeCustomFields], or package fake's Server.Contact).
	CustomFields func(ctx context.Context, contactID string) (map[string]string, error)
	// SpendRateLimit, for fakes, sends requests without pacing until the
	// server answers 429, then one in each other key form, to check that
	// the three forms count alike toward the request limit. Against the
	// service it spends the account's shared limit: every client of the
	// account is refused until it refills. Off by default.
	SpendRateLimit bool
}

// WriteTargets are the ids a run in write mode may touch.
type WriteTargets struct {
	// PhoneNumberID is the provider_identifier of one of the account's
	// chatapp channel accounts.
	PhoneNumberID string
	// PhoneNumber is a test phone number (country code and digits): the
	// run creates this contact (or finds it from an earlier run), sets a
	// custom field convocheck_run on it, removes a tag id it does not
	// carry, and cancels its sequence.
	PhoneNumber string
}

// ErrCannotRun is returned (wrapped) by [Run] when no check could be made:
// a bad configuration, an unreachable server, or a key refused in every
// form.
var ErrCannotRun = errors.New("conformance: cannot run")

func cannotRun(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrCannotRun, fmt.Sprintf(format, args...))
}

// Run checks the server cfg names and returns the report. The error is
// non-nil (wrapping [ErrCannotRun]) only when the run could not start or
// could not reach the server with the key; a failed check is in the report,
// not an error. The report of a run that stopped early (a 429, the timeout,
// ctx ending) says why in [Report.Stopped].
func Run(ctx context.Context, cfg Config) (*Report, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	cfg = cfg.withDefaults()
	ctx, cancel := context.WithTimeout(ctx, cfg.Timeout)
	defer cancel()
	r := newRunner(cfg)
	start := time.Now()
	err := r.run(ctx)
	rep := r.report(time.Since(start))
	return rep, err
}

func (cfg Config) validate() error {
	u, err := url.Parse(cfg.BaseURL)
	switch {
	case cfg.BaseURL == "":
		return cannotRun("the base URL is empty")
	case err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https"):
		return cannotRun("the base URL %q is not an absolute http(s) URL", cfg.BaseURL)
	case !strings.HasSuffix(strings.TrimSuffix(u.Path, "/"), "/v1"):
		return cannotRun("the base URL %q does not end with /v1", cfg.BaseURL)
	case u.RawQuery != "" || u.Fragment != "":
		return cannotRun("the base URL %q has a query or a fragment", cfg.BaseURL)
	case u.Scheme == "http" && !netx.IsLoopback(u.Hostname()) && !cfg.AllowInsecureHTTP:
		return cannotRun("the base URL uses plain http on %s, which would send the key in the clear; use https (or allow insecure HTTP)", u.Host)
	case cfg.APIKey == "":
		return cannotRun("the API key is empty")
	case cfg.MaxRequests < 0 || cfg.Timeout < 0:
		return cannotRun("a negative request budget or timeout")
	}
	if w := cfg.Write; w != nil && (w.PhoneNumberID == "" || w.PhoneNumber == "") {
		return cannotRun("write mode needs both a phone_number_id and a test phone number")
	}
	return nil
}

func (cfg Config) withDefaults() Config {
	cfg.BaseURL = strings.TrimSuffix(cfg.BaseURL, "/")
	if cfg.MaxRequests == 0 {
		cfg.MaxRequests = DefaultMaxRequests
	}
	if cfg.Pace == 0 {
		cfg.Pace = DefaultPace
	}
	if cfg.Pace < 0 {
		cfg.Pace = 0
	}
	if cfg.Timeout == 0 {
		cfg.Timeout = DefaultTimeout
	}
	return cfg
}
