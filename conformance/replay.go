package conformance

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"math"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
)

// ReplayConfig says where to replay a recording.
type ReplayConfig struct {
	// BaseURL is the API's base address of the server to replay against,
	// ending in /v1.
	BaseURL string
	// APIKey is sent in the form each recorded request used.
	APIKey string
	// HTTPClient sends the requests; nil: a client of its own.
	HTTPClient *http.Client
	// Pace, MaxRequests and Timeout are as in [Config].
	Pace time.Duration
	// MaxRequests is the request budget; 0: [DefaultMaxRequests] or the
	// recording's length, whichever is larger.
	MaxRequests int
	// Timeout bounds the replay; 0: [DefaultTimeout].
	Timeout time.Duration
	// FileDigests compares the SHA-256 of files too, not only their size.
	// Off by default: a fake built from a recording has the files' sizes,
	// not their bytes.
	FileDigests bool
	// AllowInsecureHTTP is as in [Config].
	AllowInsecureHTTP bool
	// SetClock, when not nil, moves the replayed server's clock to each
	// exchange's recorded time (its envelope timestamp) before the
	// exchange is sent, so that what a server computes from its clock (the
	// read window's since, a file address's expires_at, an anomaly's
	// waiting_hours, which conversations wait) is computed at the recorded
	// moment, and its rate limit refills as the recorded server's did.
	// [ConvofakeClock] moves convofake's clock; for the in-process fake,
	// wrap its clock's Set. nil: the clock is not moved.
	SetClock func(ctx context.Context, at time.Time) error
}

// ClockTolerance is how far a value a server computes from its clock (a
// message read's window.since, a file address's expires_at) may move
// against the envelope's timestamp between the recording and the replay: a
// server reads its clock when the request arrives and again when it stamps
// the answer, a little later.
const ClockTolerance = time.Second

// AnomalyWaitingTolerance is how far a replayed anomaly item's
// waiting_hours may lie from the recorded one: the service serves the
// report from a cache valid a few minutes (so the recorded value may have
// been computed up to that long before the recorded moment), and rounds it
// to one decimal.
const AnomalyWaitingTolerance = 0.2

// Difference is one place where a replayed answer differs from the
// recorded one.
type Difference struct {
	// Line is the recording's line of the exchange.
	Line int `json:"line"`
	// Request is the request, e.g. "GET /conversations?status=all".
	Request string `json:"request"`
	// Place is where they differ: "status", "body.data.items[2].status",
	// "file.size".
	Place string `json:"place"`
	// Recorded is the recorded value (JSON), "(absent)" when there was none.
	Recorded string `json:"recorded"`
	// Replayed is the replayed value (JSON), "(absent)" when there is none.
	Replayed string `json:"replayed"`
}

// ReplayReport is what a replay found.
type ReplayReport struct {
	// Exchanges is the number of exchanges in the recording.
	Exchanges int `json:"exchanges"`
	// Sent is the number of requests sent.
	Sent int `json:"sent"`
	// Differences lists every difference, in the recording's order.
	Differences []Difference `json:"differences"`
	// Notes says what could not be replayed, and why.
	Notes []string `json:"notes,omitempty"`
}

// WriteText writes one line per difference, then a summary.
func (r *ReplayReport) WriteText(w io.Writer) error {
	var b strings.Builder
	for _, d := range r.Differences {
		fmt.Fprintf(&b, "line %d: %s: %s: recorded %s, replayed %s\n", d.Line, d.Request, d.Place, d.Recorded, d.Replayed)
	}
	for _, n := range r.Notes {
		b.WriteString("note: " + n + "\n")
	}
	fmt.Fprintf(&b, "%d exchanges replayed (%d requests): %d differences\n", r.Exchanges, r.Sent, len(r.Differences))
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteJSON writes the report as one JSON document.
func (r *ReplayReport) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(r)
}

// ReadRecording reads the exchanges of a recording (the header line is
// checked and left out).
func ReadRecording(rd io.Reader) ([]Entry, error) {
	sc := bufio.NewScanner(rd)
	sc.Buffer(make([]byte, 0, 64<<10), 64<<20)
	var out []Entry
	for n := 1; sc.Scan(); n++ {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		var e Entry
		if err := json.Unmarshal(line, &e); err != nil {
			return nil, fmt.Errorf("recording line %d: %w", n, err)
		}
		switch e.Kind {
		case "header":
			continue
		case "exchange":
		default:
			return nil, fmt.Errorf("recording line %d: unknown kind %q", n, e.Kind)
		}
		e.line = n
		out = append(out, e)
	}
	return out, sc.Err()
}

// Replay sends the requests of a recording to the server cfg names, in
// order, and reports every difference between its answers and the
// recorded ones, field by field. It ignores only what a server generates:
// error ids, the envelope's timestamp, temporary file addresses, cursor
// strings (cursors are followed: a recorded cursor is replaced by the one
// the replayed server gave at the same place), and raw, which is outside
// the contract. What a server computes from its clock or its cache is
// compared by rule: a message read's window.since (without a since asked)
// and a file address's expires_at must lie as far from the envelope's
// timestamp as recorded, within [ClockTolerance]; an anomaly item's
// waiting_hours within [AnomalyWaitingTolerance] of the recorded one (the
// report's cache). [ReplayConfig.SetClock] moves the replayed server's
// clock to each exchange's recorded time, so that the rest (which
// conversations wait, the rate limit) is computed at the recorded moment.
// Recorded requests are sent with cfg's key in the form they used (none
// when they had none): a request recorded with a wrong key is replayed
// with the right one, and differs. A file download is replayed
// at the address the replayed attachment answer gave in its place.
func Replay(ctx context.Context, recording io.Reader, cfg ReplayConfig) (*ReplayReport, error) {
	entries, err := ReadRecording(recording)
	if err != nil {
		return nil, err
	}
	check := Config{BaseURL: cfg.BaseURL, APIKey: cfg.APIKey, Pace: cfg.Pace, Timeout: cfg.Timeout,
		MaxRequests: max(cfg.MaxRequests, len(entries), DefaultMaxRequests), HTTPClient: cfg.HTTPClient, AllowInsecureHTTP: cfg.AllowInsecureHTTP}
	if err := check.validate(); err != nil {
		return nil, err
	}
	check = check.withDefaults()
	ctx, cancel := context.WithTimeout(ctx, check.Timeout)
	defer cancel()
	rp := &replayer{r: newRunner(check), cfg: cfg, cursors: map[string]string{}, files: map[string]string{},
		rep: &ReplayReport{Exchanges: len(entries)}}
	for _, e := range entries {
		if err := rp.one(ctx, e); err != nil {
			return rp.rep, err
		}
	}
	rp.rep.Sent, _ = rp.r.pacer.counts()
	return rp.rep, nil
}

type replayer struct {
	r       *runner
	cfg     ReplayConfig
	cursors map[string]string // recorded next_cursor -> replayed
	files   map[string]string // recorded file address (no query) -> replayed address
	rep     *ReplayReport
}

func (rp *replayer) one(ctx context.Context, e Entry) error {
	target, display := "", e.Method+" "
	q := url.Values{}
	for k, vs := range e.Query {
		q[k] = slices.Clone(vs)
	}
	if c := q.Get("cursor"); c != "" {
		if mapped, ok := rp.cursors[c]; ok {
			q.Set("cursor", mapped)
		}
	}
	if e.Path != "" {
		target = rp.r.url(e.Path, "", q)
		display += e.Path
		if len(e.Query) > 0 {
			display += "?" + url.Values(e.Query).Encode()
		}
	} else {
		mapped, ok := rp.files[e.URL]
		if !ok {
			rp.rep.Notes = append(rp.rep.Notes, fmt.Sprintf("line %d: the file address was not given by any replayed attachment answer; not sent", e.line))
			return nil
		}
		target, display = mapped, e.Method+" (temporary file address)"
	}
	recTS := recordedTime(e.Body)
	if rp.cfg.SetClock != nil && !recTS.IsZero() {
		if err := rp.cfg.SetClock(ctx, recTS); err != nil {
			return fmt.Errorf("line %d: moving the replayed server's clock to %s: %w", e.line, recTS.Format(time.RFC3339Nano), err)
		}
	}
	var body io.Reader
	if len(e.RequestBody) > 0 {
		body = bytes.NewReader(e.RequestBody)
	}
	req, err := http.NewRequestWithContext(ctx, e.Method, target, body)
	if err != nil {
		return err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if e.Path != "" && e.Auth != "none" {
		switch e.Auth {
		case "ApiKey":
			req.Header.Set("Authorization", "ApiKey "+rp.cfg.APIKey)
		case "x-api-key":
			req.Header.Set("x-api-key", rp.cfg.APIKey)
		default:
			req.Header.Set("Authorization", "Bearer "+rp.cfg.APIKey)
		}
	}
	resp, err := rp.r.hc.Do(req)
	if err != nil {
		return fmt.Errorf("line %d: %s: %s", e.line, display, rp.r.redact.String(err.Error()))
	}
	defer resp.Body.Close()
	got, err := io.ReadAll(resp.Body)
	if err != nil {
		return fmt.Errorf("line %d: reading the answer: %w", e.line, err)
	}
	diff := func(place string, rec, rpl any) {
		rp.rep.Differences = append(rp.rep.Differences, Difference{Line: e.line, Request: display, Place: place,
			Recorded: showJSON(rec), Replayed: showJSON(rpl)})
	}
	if resp.StatusCode != e.Status {
		diff("status", e.Status, resp.StatusCode)
	}
	switch {
	case e.File != nil:
		if n := int64(len(got)); n != e.File.Size {
			diff("file.size", e.File.Size, n)
		}
		if sum := sha256.Sum256(got); rp.cfg.FileDigests && hex.EncodeToString(sum[:]) != e.File.SHA256 {
			diff("file.sha256", e.File.SHA256, hex.EncodeToString(sum[:]))
		}
	case len(e.Body) > 0:
		rec, rpl := decodeJSON(e.Body), decodeJSON(rp.r.redact.Bytes(got))
		rp.learn(e, rec, rpl)
		cmpr := &comparer{attachment: isAttachment(e.Path),
			recTS: recTS, rplTS: recordedTime(rp.r.redact.Bytes(got)), sinceAsked: q.Get("since") != "", diff: diff}
		cmpr.compare("body", rec, rpl)
	}
	return nil
}

// learn maps the recorded cursor and file address of an answer to the
// replayed ones.
func (rp *replayer) learn(e Entry, rec, rpl any) {
	rd, _ := rec.(map[string]any)
	pd, _ := rpl.(map[string]any)
	rdata, _ := rd["data"].(map[string]any)
	pdata, _ := pd["data"].(map[string]any)
	if c, ok := rdata["next_cursor"].(string); ok {
		if p, ok := pdata["next_cursor"].(string); ok {
			rp.cursors[c] = p
		}
	}
	if isAttachment(e.Path) {
		if u, ok := rdata["url"].(string); ok {
			if p, ok := pdata["url"].(string); ok {
				rp.files[withoutQuery(u)] = p
			}
		}
	}
}

func withoutQuery(u string) string {
	if p, err := url.Parse(u); err == nil {
		return p.Scheme + "://" + p.Host + p.EscapedPath()
	}
	return u
}

func isAttachment(path string) bool { return strings.HasPrefix(path, "/attachments/") }

func decodeJSON(b []byte) any {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) != nil {
		return string(b)
	}
	return v
}

func showJSON(v any) string {
	if v == absent {
		return "(absent)"
	}
	b, err := marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	const n = 200
	if len(b) > n {
		return string(b[:n]) + "…"
	}
	return string(b)
}

// absent stands for a missing value in a difference.
var absent = &struct{ absent bool }{true}

// comparer compares a recorded answer with the replayed one.
type comparer struct {
	attachment   bool      // an attachment answer: its url is the server's
	recTS, rplTS time.Time // the envelopes' timestamps
	sinceAsked   bool      // the request gave since: the window's since is the caller's
	diff         func(place string, rec, rpl any)
}

// compare reports each difference between rec and rpl under place.
func (c *comparer) compare(place string, rec, rpl any) {
	switch r := rec.(type) {
	case map[string]any:
		p, ok := rpl.(map[string]any)
		if !ok {
			c.diff(place, rec, rpl)
			return
		}
		keys := slices.Sorted(maps.Keys(r))
		for k := range p {
			if _, ok := r[k]; !ok {
				keys = append(keys, k)
			}
		}
		for _, k := range keys {
			if ignored(place, k, c.attachment) {
				continue
			}
			rv, rok := r[k]
			pv, pok := p[k]
			switch {
			case !rok:
				c.diff(place+"."+k, absent, pv)
			case !pok:
				c.diff(place+"."+k, rv, absent)
			case k == "next_cursor":
				if (rv == nil) != (pv == nil) {
					c.diff(place+"."+k, rv, pv)
				}
			case k == "waiting_hours" && strings.HasPrefix(place, "body.data.buckets."):
				c.nearly(place+"."+k, rv, pv, AnomalyWaitingTolerance)
			case k == "since" && place == "body.data.window" && !c.sinceAsked || k == "expires_at" && place == "body.data" && c.attachment:
				c.sameDistance(place+"."+k, rv, pv)
			default:
				c.compare(place+"."+k, rv, pv)
			}
		}
	case []any:
		p, ok := rpl.([]any)
		if !ok {
			c.diff(place, rec, rpl)
			return
		}
		if len(r) != len(p) {
			c.diff(place+".length", len(r), len(p))
		}
		for i := range min(len(r), len(p)) {
			c.compare(fmt.Sprintf("%s[%d]", place, i), r[i], p[i])
		}
	default:
		if showJSON(rec) != showJSON(rpl) {
			c.diff(place, rec, rpl)
		}
	}
}

// nearly reports two numbers further apart than tolerance (or not both
// numbers).
func (c *comparer) nearly(place string, rec, rpl any, tolerance float64) {
	r, rerr := strconv.ParseFloat(fmt.Sprint(rec), 64)
	p, perr := strconv.ParseFloat(fmt.Sprint(rpl), 64)
	if rerr != nil || perr != nil || math.Abs(r-p) > tolerance+1e-9 {
		c.diff(place, rec, rpl)
	}
}

// sameDistance reports two times that do not lie as far from their
// envelope's timestamp, within ClockTolerance.
func (c *comparer) sameDistance(place string, rec, rpl any) {
	r, rerr := time.Parse(time.RFC3339Nano, fmt.Sprint(rec))
	p, perr := time.Parse(time.RFC3339Nano, fmt.Sprint(rpl))
	if rerr != nil || perr != nil || c.recTS.IsZero() || c.rplTS.IsZero() {
		c.diff(place, rec, rpl)
		return
	}
	if d := c.recTS.Sub(r) - c.rplTS.Sub(p); d > ClockTolerance || d < -ClockTolerance {
		c.diff(place, rec, rpl)
	}
}

// recordedTime is the timestamp of a JSON envelope, zero when it has none.
func recordedTime(body []byte) time.Time {
	if len(body) == 0 {
		return time.Time{}
	}
	var env struct {
		Timestamp string `json:"timestamp"`
	}
	if json.Unmarshal(body, &env) != nil {
		return time.Time{}
	}
	t, _ := time.Parse(time.RFC3339Nano, env.Timestamp)
	return t
}

// ignored: what a server generates, and raw.
func ignored(place, key string, attachment bool) bool {
	switch {
	case place == "body" && (key == "timestamp" || key == "errorId"):
		return true
	case attachment && place == "body.data" && key == "url":
		return true
	case key == "raw":
		return true
	}
	return false
}
