package conformance

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"time"
)

// Status is the outcome of one check.
type Status string

// The outcomes of a check.
const (
	Pass Status = "pass" // the server answered as the rule says
	Fail Status = "fail" // it did not; Result.Reason says how
	Skip Status = "skip" // the check could not be made; Result.Reason says why
)

// Basis says where a check's rule comes from.
type Basis string

// The bases of the checks.
const (
	// BasisSpec: the service's interface specification states the rule;
	// [Result.Spec] quotes the sentence. A failure against the real service
	// means the service contradicts its specification, or our reading of it.
	BasisSpec Basis = "spec"
	// BasisDecision: the specification leaves the point open ("not shown")
	// and docs/behaviour.md states what the SDK and the fake assume. A
	// failure against the real service means that assumption is wrong.
	BasisDecision Basis = "decision"
	// BasisSDK: the check is of the Go SDK, not of the server: it reads the
	// server's data through package convo and checks that it decodes, or
	// that an error becomes the typed error. A failure is the SDK's to fix.
	BasisSDK Basis = "sdk"
)

// Result is the outcome of one check.
type Result struct {
	// ID names the check, e.g. "conversations/limit-bounds".
	ID string `json:"id"`
	// Title says what the check checks.
	Title string `json:"title"`
	// Basis says where its rule comes from.
	Basis Basis `json:"basis"`
	// Spec quotes the sentence (or the table row) of the service's interface
	// specification that a "spec" check enforces; "" for the others.
	Spec string `json:"spec,omitempty"`
	// Status is pass, fail or skip.
	Status Status `json:"status"`
	// Reason says how the check failed, or why it was skipped.
	Reason string `json:"reason,omitempty"`
	// Request is the request of a failure, e.g. "GET /v1/conversations?limit=0".
	Request string `json:"request,omitempty"`
	// Excerpt is the beginning of the answer of a failure: its status and
	// body.
	Excerpt string `json:"excerpt,omitempty"`
}

// Report is what a run found.
type Report struct {
	// BaseURL is the server checked.
	BaseURL string `json:"base_url"`
	// Mode is "read-only" or "write".
	Mode string `json:"mode"`
	// Anomalies tells whether the full anomaly checks ran.
	Anomalies bool `json:"anomalies"`
	// Results has one entry per check, in the order they ran.
	Results []Result `json:"results"`
	// Passed, Failed and Skipped count the results by status.
	Passed int `json:"passed"`
	// Failed counts the failed checks.
	Failed int `json:"failed"`
	// Skipped counts the skipped checks.
	Skipped int `json:"skipped"`
	// Requests is the number of requests sent, file downloads included.
	Requests int `json:"requests"`
	// BadKeyRequests is the number of requests sent with a missing or
	// wrong key, or with the key outside the headers.
	BadKeyRequests int `json:"bad_key_requests"`
	// AnomalyRequests is the number of anomaly reports asked for.
	AnomalyRequests int `json:"anomaly_requests"`
	// WriteRequests is the number of POST, PATCH and DELETE requests.
	WriteRequests int `json:"write_requests"`
	// Elapsed is how long the run took.
	Elapsed time.Duration `json:"elapsed_ns"`
	// RateLimitHeaders are the rate-limit headers the server sent (any
	// header whose name mentions a rate limit, and Retry-After), each with
	// the last value seen. The run only reports them.
	RateLimitHeaders map[string]string `json:"rate_limit_headers,omitempty"`
	// Stopped says why the run stopped before its end ("" when it ran to
	// the end): a 429, the timeout, or its context ending.
	Stopped string `json:"stopped,omitempty"`
}

// OK reports whether every check passed or was skipped and the run reached
// its end.
func (r *Report) OK() bool { return r.Failed == 0 && r.Stopped == "" }

// ExitCode is convocheck's exit code for the report: 0 when every check
// passed or was skipped, 1 when one failed, 2 when the run stopped early.
func (r *Report) ExitCode() int {
	switch {
	case r.Stopped != "":
		return 2
	case r.Failed > 0:
		return 1
	}
	return 0
}

// Result returns the result of the check named id.
func (r *Report) Result(id string) (Result, bool) {
	for _, res := range r.Results {
		if res.ID == id {
			return res, true
		}
	}
	return Result{}, false
}

// WriteText writes one line per check (its status, basis, id and title),
// the reason and the request of a failure or a skip under it, and the
// sentence of the specification a failed "spec" check enforces, then a
// summary.
func (r *Report) WriteText(w io.Writer) error {
	var b strings.Builder
	for _, res := range r.Results {
		fmt.Fprintf(&b, "%-4s  %-8s  %-44s %s\n", res.Status, res.Basis, res.ID, res.Title)
		if res.Reason != "" {
			fmt.Fprintf(&b, "      %s\n", res.Reason)
		}
		if res.Status == Fail && res.Spec != "" {
			fmt.Fprintf(&b, "      the specification: %s\n", res.Spec)
		}
		if res.Status == Fail && res.Request != "" {
			fmt.Fprintf(&b, "      request: %s\n", res.Request)
		}
		if res.Status == Fail && res.Excerpt != "" {
			fmt.Fprintf(&b, "      answer:  %s\n", res.Excerpt)
		}
	}
	b.WriteString(r.Summary() + "\n")
	if len(r.RateLimitHeaders) > 0 {
		b.WriteString("rate-limit headers seen:")
		for _, k := range slices.Sorted(maps.Keys(r.RateLimitHeaders)) {
			fmt.Fprintf(&b, " %s: %s;", k, r.RateLimitHeaders[k])
		}
		b.WriteString("\n")
	}
	if r.Stopped != "" {
		b.WriteString("stopped early: " + r.Stopped + "\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// Summary is one line: the counts of checks and requests.
func (r *Report) Summary() string {
	return fmt.Sprintf("%d checks: %d passed, %d failed, %d skipped; %d requests (%d with a bad key, %d anomaly reports, %d writes) in %s (%s mode)",
		len(r.Results), r.Passed, r.Failed, r.Skipped, r.Requests, r.BadKeyRequests, r.AnomalyRequests, r.WriteRequests,
		r.Elapsed.Round(time.Millisecond), r.Mode)
}

// WriteJSON writes the report as one JSON document.
func (r *Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(r)
}
