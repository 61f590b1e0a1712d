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
	"net/http"
	"net/url"
	"slices"
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
}

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
// the contract. Recorded requests are sent with cfg's key in the form
// they used (none when they had none): a request recorded with a wrong key
// is replayed with the right one, and differs. A file download is replayed
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
		compareJSON("body", rec, rpl, isAttachment(e.Path), diff)
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

// compareJSON reports each difference between rec and rpl under place.
func compareJSON(place string, rec, rpl any, attachment bool, diff func(string, any, any)) {
	switch r := rec.(type) {
	case map[string]any:
		p, ok := rpl.(map[string]any)
		if !ok {
			diff(place, rec, rpl)
			return
		}
		keys := slices.Sorted(maps.Keys(r))
		for k := range p {
			if _, ok := r[k]; !ok {
				keys = append(keys, k)
			}
		}
		for _, k := range keys {
			if ignored(place, k, attachment) {
				continue
			}
			rv, rok := r[k]
			pv, pok := p[k]
			switch {
			case !rok:
				diff(place+"."+k, absent, pv)
			case !pok:
				diff(place+"."+k, rv, absent)
			case k == "next_cursor":
				if (rv == nil) != (pv == nil) {
					diff(place+"."+k, rv, pv)
				}
			default:
				compareJSON(place+"."+k, rv, pv, attachment, diff)
			}
		}
	case []any:
		p, ok := rpl.([]any)
		if !ok {
			diff(place, rec, rpl)
			return
		}
		if len(r) != len(p) {
			diff(place+".length", len(r), len(p))
		}
		for i := range min(len(r), len(p)) {
			compareJSON(fmt.Sprintf("%s[%d]", place, i), r[i], p[i], attachment, diff)
		}
	default:
		if showJSON(rec) != showJSON(rpl) {
			diff(place, rec, rpl)
		}
	}
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
