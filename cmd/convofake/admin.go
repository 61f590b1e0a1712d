package main

import (
	"bytes"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"path"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/convoapi/convo-go/fake"
)

// maxAdminBody bounds the body of an admin request (a seed document can be
// large, but not unbounded).
const maxAdminBody = 16 << 20

// maxFaultLatency bounds the latency of a fault rule: it is real time.
const maxFaultLatency = 10 * time.Minute

// admin is the admin HTTP API under /_fake/: everything a Go test does with
// a *fake.Server, over HTTP, guarded by a bearer token.
type admin struct {
	srv       *fake.Server
	tokenHash [sha256.Size]byte
	startSeed *fake.Seed // what POST /_fake/reset goes back to
	startNow  time.Time  // the clock's reading at start
	mux       *http.ServeMux
}

func newAdmin(srv *fake.Server, token string, startSeed *fake.Seed, startNow time.Time) *admin {
	a := &admin{srv: srv, tokenHash: sha256.Sum256([]byte(token)), startSeed: startSeed, startNow: startNow, mux: http.NewServeMux()}
	handle := func(pattern string, h func(w http.ResponseWriter, r *http.Request) error) {
		a.mux.HandleFunc(pattern, func(w http.ResponseWriter, r *http.Request) {
			if err := h(w, r); err != nil {
				writeAdminError(w, err)
			}
		})
	}
	handle("GET /_fake", a.info)
	handle("GET /_fake/{$}", a.info)
	handle("POST /_fake/reset", a.reset)
	handle("POST /_fake/seed", a.seed)
	handle("GET /_fake/clock", a.getClock)
	handle("POST /_fake/clock", a.setClock)
	handle("GET /_fake/faults", a.listFaults)
	handle("POST /_fake/faults", a.addFault)
	handle("DELETE /_fake/faults", a.clearFaults)
	handle("DELETE /_fake/faults/{id}", a.removeFault)
	handle("GET /_fake/requests", a.requests)
	handle("DELETE /_fake/requests", a.clearRequests)
	handle("GET /_fake/companies", a.companies)
	handle("GET /_fake/state/contacts", a.contacts)
	handle("GET /_fake/state/contacts/{id}", a.contact)
	handle("GET /_fake/state/conversations/{id}", a.conversation)
	handle("GET /_fake/state/messages/{id}", a.message)
	return a
}

// adminError is an error answer of the admin API:
// {"error": "<code>", "message": "<text>"}.
type adminError struct {
	status  int
	Code    string `json:"error"`
	Message string `json:"message"`
}

func (e *adminError) Error() string { return e.Code + ": " + e.Message }

func errorf(status int, code, format string, args ...any) *adminError {
	return &adminError{status: status, Code: code, Message: fmt.Sprintf(format, args...)}
}

func badRequest(format string, args ...any) *adminError {
	return errorf(http.StatusBadRequest, "invalid_request", format, args...)
}

func writeAdminError(w http.ResponseWriter, err error) {
	var ae *adminError
	if !errors.As(err, &ae) {
		ae = errorf(http.StatusInternalServerError, "internal_error", "%v", err)
	}
	writeJSON(w, ae.status, ae)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		status = http.StatusInternalServerError
		buf.Reset()
		buf.WriteString(`{"error":"internal_error","message":"cannot encode the answer"}` + "\n")
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes())
}

// ServeHTTP checks the admin token (before anything else, so that the admin
// routes are not even revealed without it), then routes. Unknown routes and
// methods answer in the admin error shape.
func (a *admin) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !a.authorized(r) {
		w.Header().Set("WWW-Authenticate", `Bearer realm="convofake admin"`)
		writeAdminError(w, errorf(http.StatusUnauthorized, "unauthorized",
			"missing or wrong admin token: send Authorization: Bearer <admin token> (printed at start as CONVOFAKE_ADMIN_TOKEN)"))
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, maxAdminBody)
	if _, pattern := a.mux.Handler(r); pattern == "" {
		var allowed []string
		for _, m := range []string{http.MethodGet, http.MethodPost, http.MethodDelete} {
			r2 := r.Clone(r.Context())
			r2.Method = m
			if _, p := a.mux.Handler(r2); p != "" {
				allowed = append(allowed, m)
			}
		}
		if len(allowed) > 0 {
			w.Header().Set("Allow", strings.Join(allowed, ", "))
			writeAdminError(w, errorf(http.StatusMethodNotAllowed, "method_not_allowed", "%s is not allowed on %s (allowed: %s)", r.Method, r.URL.Path, strings.Join(allowed, ", ")))
			return
		}
		writeAdminError(w, errorf(http.StatusNotFound, "not_found", "no admin endpoint %s %s; GET /_fake/ lists them", r.Method, r.URL.Path))
		return
	}
	a.mux.ServeHTTP(w, r)
}

// authorized compares the bearer token with the admin token in constant time
// (over SHA-256 digests, so that the length does not leak either).
func (a *admin) authorized(r *http.Request) bool {
	scheme, token, ok := strings.Cut(r.Header.Get("Authorization"), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return false
	}
	got := sha256.Sum256([]byte(strings.TrimSpace(token)))
	return subtle.ConstantTimeCompare(got[:], a.tokenHash[:]) == 1
}

// decodeBody decodes a JSON object body strictly into v. An empty body is
// allowed when optional is true (v keeps its zero value).
func decodeBody(r *http.Request, v any, optional bool) error {
	data, err := io.ReadAll(r.Body)
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return errorf(http.StatusRequestEntityTooLarge, "body_too_large", "the body is larger than %d bytes", mbe.Limit)
		}
		return badRequest("cannot read the body: %v", err)
	}
	if len(bytes.TrimSpace(data)) == 0 {
		if optional {
			return nil
		}
		return badRequest("a JSON object body is required")
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return badRequest("the body is not the expected JSON object: %v", err)
	}
	if dec.More() {
		return badRequest("the body holds more than one JSON value")
	}
	return nil
}

// ---- info, reset, seed ----

type infoJSON struct {
	CompanyID string    `json:"company_id"`
	Clock     clockJSON `json:"clock"`
	Endpoints []string  `json:"endpoints"`
}

func (a *admin) info(w http.ResponseWriter, _ *http.Request) error {
	writeJSON(w, http.StatusOK, infoJSON{
		CompanyID: a.srv.Company().ID(),
		Clock:     a.clockState(),
		Endpoints: []string{
			"POST /_fake/reset", "POST /_fake/seed",
			"GET /_fake/clock", "POST /_fake/clock",
			"GET /_fake/faults", "POST /_fake/faults", "DELETE /_fake/faults", "DELETE /_fake/faults/{id}",
			"GET /_fake/requests", "DELETE /_fake/requests",
			"GET /_fake/companies",
			"GET /_fake/state/contacts", "GET /_fake/state/contacts/{id}",
			"GET /_fake/state/conversations/{id}", "GET /_fake/state/messages/{id}",
		},
	})
	return nil
}

type okJSON struct {
	OK    bool      `json:"ok"`
	Clock clockJSON `json:"clock"`
}

// reset: POST /_fake/reset, optional body {"empty": true}. Without it the
// server goes back to its start: the start seed (demo data or --seed file)
// with the start API key, the clock at its start reading (a real clock:
// system time), no fault rules, an empty journal, fresh rate limits. With
// "empty": true it is fake.Server.Reset: no data at all (the default company
// keeps its id and current key).
func (a *admin) reset(w http.ResponseWriter, r *http.Request) error {
	var body struct {
		Empty bool `json:"empty"`
	}
	if err := decodeBody(r, &body, true); err != nil {
		return err
	}
	a.srv.Clear()
	if !body.Empty {
		clock := a.srv.Clock()
		if clock.Manual() {
			clock.Set(a.startNow)
		} else {
			clock.Set(time.Now())
		}
		if err := a.srv.Load(a.startSeed); err != nil {
			return errorf(http.StatusInternalServerError, "internal_error", "reloading the start seed: %v", err)
		}
	}
	writeJSON(w, http.StatusOK, okJSON{OK: true, Clock: a.clockState()})
	return nil
}

// seed: POST /_fake/seed, body a seed document (fake.Seed, see fake/SEED.md).
// It replaces the data (fake.Server.Load); the journal, fault rules and rate
// limits are kept. A "now" in the document sets the clock. A document that
// does not load changes nothing: 400 invalid_seed naming the JSON path.
func (a *admin) seed(w http.ResponseWriter, r *http.Request) error {
	data, err := io.ReadAll(r.Body)
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return errorf(http.StatusRequestEntityTooLarge, "body_too_large", "the seed is larger than %d bytes", mbe.Limit)
		}
		return badRequest("cannot read the body: %v", err)
	}
	seed, err := fake.LoadSeed(bytes.NewReader(data))
	if err != nil {
		return errorf(http.StatusBadRequest, "invalid_seed", "%v", err)
	}
	if err := a.srv.Load(seed); err != nil {
		return errorf(http.StatusBadRequest, "invalid_seed", "%v", err)
	}
	writeJSON(w, http.StatusOK, okJSON{OK: true, Clock: a.clockState()})
	return nil
}

// ---- clock ----

type clockJSON struct {
	Now    string `json:"now"`
	Frozen bool   `json:"frozen"`
}

func (a *admin) clockState() clockJSON {
	c := a.srv.Clock()
	return clockJSON{Now: formatTime(c.Now()), Frozen: c.Manual()}
}

func (a *admin) getClock(w http.ResponseWriter, _ *http.Request) error {
	writeJSON(w, http.StatusOK, a.clockState())
	return nil
}

// setClock: POST /_fake/clock with {"advance": "90m"} (Go duration, with an
// optional leading days part: "2d4h"; negative goes back) or {"set":
// "<RFC 3339>"}. Only a frozen clock moves: on a real clock both are 409
// clock_not_frozen.
func (a *admin) setClock(w http.ResponseWriter, r *http.Request) error {
	var body struct {
		Advance *string `json:"advance"`
		Set     *string `json:"set"`
	}
	if err := decodeBody(r, &body, false); err != nil {
		return err
	}
	if (body.Advance == nil) == (body.Set == nil) {
		return badRequest(`give exactly one of "advance" (e.g. "90m", "2d4h") or "set" (RFC 3339 time)`)
	}
	var d time.Duration
	var t time.Time
	var err error
	if body.Advance != nil {
		if d, err = parseDuration(*body.Advance); err != nil {
			return badRequest("advance: %v", err)
		}
	} else if t, err = time.Parse(time.RFC3339Nano, *body.Set); err != nil {
		return badRequest("set: %q is not an RFC 3339 date-time (e.g. 2026-11-22T10:00:00Z)", *body.Set)
	}
	clock := a.srv.Clock()
	if !clock.Manual() {
		return errorf(http.StatusConflict, "clock_not_frozen",
			"the clock is real and follows system time; start convofake with --clock=frozen:<RFC 3339 time> (or a seed with \"now\") to move it")
	}
	if body.Advance != nil {
		clock.Advance(d)
	} else {
		clock.Set(t)
	}
	writeJSON(w, http.StatusOK, a.clockState())
	return nil
}

// parseDuration reads a Go duration with an optional leading days part
// ("2d", "2d4h", "-1d"), as the seed's "ago" fields do.
func parseDuration(s string) (time.Duration, error) {
	neg := false
	rest := s
	if strings.HasPrefix(rest, "-") {
		neg, rest = true, rest[1:]
	}
	var days time.Duration
	if i := strings.IndexByte(rest, 'd'); i > 0 {
		n, err := strconv.Atoi(rest[:i])
		if err != nil || n < 0 {
			return 0, fmt.Errorf("%q is not a duration (e.g. 90m, 3h, 2d4h)", s)
		}
		days, rest = time.Duration(n)*24*time.Hour, rest[i+1:]
	}
	var d time.Duration
	if rest != "" {
		var err error
		if d, err = time.ParseDuration(rest); err != nil || strings.HasPrefix(rest, "-") {
			return 0, fmt.Errorf("%q is not a duration (e.g. 90m, 3h, 2d4h)", s)
		}
	} else if days == 0 {
		return 0, fmt.Errorf("%q is not a duration (e.g. 90m, 3h, 2d4h)", s)
	}
	if neg {
		return -(days + d), nil
	}
	return days + d, nil
}

// ---- faults ----

// jsonDuration is a duration in JSON: a Go duration string ("1.5s",
// "250ms") or a number of seconds.
type jsonDuration time.Duration

func (d *jsonDuration) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err == nil {
		v, err := time.ParseDuration(s)
		if err != nil {
			return fmt.Errorf("%q is not a duration (e.g. \"30s\", \"250ms\")", s)
		}
		*d = jsonDuration(v)
		return nil
	}
	var secs float64
	if err := json.Unmarshal(b, &secs); err != nil {
		return fmt.Errorf("%s is neither a duration string nor a number of seconds", b)
	}
	*d = jsonDuration(time.Duration(secs * float64(time.Second)))
	return nil
}

// faultJSON is a fault rule (fake.Fault) in JSON.
type faultJSON struct {
	Method     string          `json:"method"`
	Path       string          `json:"path"`
	Status     int             `json:"status"`
	Code       string          `json:"code"`
	Message    string          `json:"message"`
	Details    json.RawMessage `json:"details"`
	RetryAfter jsonDuration    `json:"retry_after"`
	Latency    jsonDuration    `json:"latency"`
	Drop       bool            `json:"drop"`
	Times      int             `json:"times"`
}

type faultIDJSON struct {
	ID int `json:"id"`
}

// addFault: POST /_fake/faults with a fault rule; 201 {"id": n}.
func (a *admin) addFault(w http.ResponseWriter, r *http.Request) error {
	var fj faultJSON
	if err := decodeBody(r, &fj, false); err != nil {
		return err
	}
	switch {
	case fj.Status != 0 && (fj.Status < 400 || fj.Status > 599):
		return badRequest("status: %d is not an error status (400–599), nor 0 for a latency or drop rule", fj.Status)
	case fj.Status == 0 && fj.Latency == 0 && !fj.Drop:
		return badRequest("a fault needs a status, a latency or drop: true")
	case fj.Times < 0:
		return badRequest("times: must be ≥ 0 (0: every matching request)")
	case fj.RetryAfter < 0:
		return badRequest("retry_after: must be ≥ 0")
	case fj.Latency < 0 || time.Duration(fj.Latency) > maxFaultLatency:
		return badRequest("latency: must be between 0 and %v", maxFaultLatency)
	case fj.Status == 0 && (fj.Code != "" || fj.Message != "" || len(fj.Details) > 0 || fj.RetryAfter != 0):
		return badRequest("code, message, details and retry_after need a status")
	}
	if fj.Path != "" {
		if _, err := path.Match(fj.Path, "/"); err != nil {
			return badRequest("path: %q is not a path.Match pattern: %v", fj.Path, err)
		}
	}
	f := fake.Fault{
		Method: strings.ToUpper(fj.Method), Path: fj.Path, Status: fj.Status, Code: fj.Code, Message: fj.Message,
		RetryAfter: time.Duration(fj.RetryAfter), Latency: time.Duration(fj.Latency), Drop: fj.Drop, Times: fj.Times,
	}
	if d := bytes.TrimSpace(fj.Details); len(d) > 0 && !bytes.Equal(d, []byte("null")) {
		f.Details = json.RawMessage(d)
	}
	writeJSON(w, http.StatusCreated, faultIDJSON{ID: a.srv.AddFault(f)})
	return nil
}

// faultOutJSON is an installed rule, as GET /_fake/faults lists it: the
// rule's fields as POST /_fake/faults takes them (durations as Go duration
// strings), its id, and remaining (uses left; null for a rule that applies
// to every matching request).
type faultOutJSON struct {
	ID         int             `json:"id"`
	Method     string          `json:"method"`
	Path       string          `json:"path"`
	Status     int             `json:"status"`
	Code       string          `json:"code"`
	Message    string          `json:"message"`
	Details    json.RawMessage `json:"details"`
	RetryAfter string          `json:"retry_after"`
	Latency    string          `json:"latency"`
	Drop       bool            `json:"drop"`
	Times      int             `json:"times"`
	Remaining  *int            `json:"remaining"`
}

// listFaults: GET /_fake/faults: the installed rules, in the order they are
// tried.
func (a *admin) listFaults(w http.ResponseWriter, _ *http.Request) error {
	out := itemsJSON[faultOutJSON]{Items: []faultOutJSON{}}
	for _, fr := range a.srv.Faults() {
		f := fr.Fault
		fo := faultOutJSON{
			ID: fr.ID, Method: f.Method, Path: f.Path, Status: f.Status, Code: f.Code, Message: f.Message,
			Details: json.RawMessage("null"), RetryAfter: f.RetryAfter.String(), Latency: f.Latency.String(),
			Drop: f.Drop, Times: f.Times,
		}
		if f.Details != nil {
			if b, err := json.Marshal(f.Details); err == nil {
				fo.Details = b
			}
		}
		if f.Times > 0 {
			n := fr.Remaining
			fo.Remaining = &n
		}
		out.Items = append(out.Items, fo)
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

func (a *admin) clearFaults(w http.ResponseWriter, _ *http.Request) error {
	a.srv.ClearFaults()
	writeJSON(w, http.StatusOK, struct {
		OK bool `json:"ok"`
	}{true})
	return nil
}

// removeFault: DELETE /_fake/faults/{id}: 200 when the rule was installed,
// 404 not_found when there is no such rule (never added, removed, or a rule
// with times that ran out by itself).
func (a *admin) removeFault(w http.ResponseWriter, r *http.Request) error {
	id, err := strconv.Atoi(r.PathValue("id"))
	if err != nil || id <= 0 {
		return badRequest("fault id %q is not a positive integer", r.PathValue("id"))
	}
	if !a.srv.RemoveFault(id) {
		return errorf(http.StatusNotFound, "not_found", "no fault rule with id %d (it may have run out of times)", id)
	}
	writeJSON(w, http.StatusOK, struct {
		OK bool `json:"ok"`
		ID int  `json:"id"`
	}{true, id})
	return nil
}

// ---- journal ----

type requestJSON struct {
	Time    string              `json:"time"`
	Method  string              `json:"method"`
	Prefix  string              `json:"prefix"`
	Path    string              `json:"path"`
	Query   map[string][]string `json:"query"`
	Headers map[string][]string `json:"headers"`
	Body    json.RawMessage     `json:"body"`
	Status  int                 `json:"status"`
}

type requestsJSON struct {
	Count int           `json:"count"`
	Items []requestJSON `json:"items"`
}

// requests: GET /_fake/requests[?method=GET&path=/conversations/*]: the
// journal, oldest first. Paths are relative to the base URL, as in fault
// rules ("/channels"), with the version prefix the client used ("/v1" or
// "/api/v1") in "prefix"; the path filter is a path.Match pattern in that
// form (a leading /v1 or /api/v1 in it is ignored).
// API keys are redacted ("Bearer [REDACTED]"). body is the request body as
// JSON when it is JSON, else as a string, else null.
func (a *admin) requests(w http.ResponseWriter, r *http.Request) error {
	method := strings.ToUpper(r.URL.Query().Get("method"))
	pattern := r.URL.Query().Get("path")
	if pattern != "" {
		if _, err := path.Match(pattern, "/"); err != nil {
			return badRequest("path: %q is not a path.Match pattern: %v", pattern, err)
		}
	}
	var secrets []string
	for _, co := range a.srv.Companies() {
		secrets = append(secrets, co.APIKey())
	}
	out := requestsJSON{Items: []requestJSON{}}
	for _, req := range a.srv.RequestsMatching(method, pattern) {
		out.Items = append(out.Items, requestJSON{
			Time: formatTime(req.Time), Method: req.Method, Prefix: req.Prefix, Path: req.Path,
			Query: redactValues(req.Query, secrets), Headers: redactValues(req.Header, secrets),
			Body: bodyJSON(req.Body), Status: req.Status,
		})
	}
	out.Count = len(out.Items)
	writeJSON(w, http.StatusOK, out)
	return nil
}

// redactValues copies m, replacing (defensively: the fake already redacts
// the key headers) any value that contains a known secret.
func redactValues(m map[string][]string, secrets []string) map[string][]string {
	out := make(map[string][]string, len(m))
	for k, vs := range m {
		cp := make([]string, len(vs))
		for i, v := range vs {
			cp[i] = v
			for _, s := range secrets {
				if s != "" && strings.Contains(v, s) {
					cp[i] = strings.ReplaceAll(v, s, fake.Redacted)
				}
			}
		}
		out[k] = cp
	}
	return out
}

func bodyJSON(b []byte) json.RawMessage {
	switch {
	case len(bytes.TrimSpace(b)) == 0:
		return json.RawMessage("null")
	case json.Valid(b):
		var buf bytes.Buffer
		if json.Compact(&buf, b) == nil {
			return buf.Bytes()
		}
	}
	s := string(b)
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	enc, _ := json.Marshal(s)
	return enc
}

func (a *admin) clearRequests(w http.ResponseWriter, _ *http.Request) error {
	a.srv.ClearRequests()
	writeJSON(w, http.StatusOK, struct {
		OK bool `json:"ok"`
	}{true})
	return nil
}

// ---- state ----

func optString(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func optTime(t time.Time) *string {
	if t.IsZero() {
		return nil
	}
	return optString(formatTime(t))
}

type contactJSON struct {
	ID                string            `json:"id"`
	CompanyID         string            `json:"company_id"`
	ChannelAccountID  string            `json:"channel_account_id"`
	Channel           string            `json:"channel"`
	Phone             *string           `json:"phone"`
	ChannelIdentifier string            `json:"channel_identifier"`
	Name              string            `json:"name"`
	Email             *string           `json:"email"`
	Gender            *string           `json:"gender"`
	Tags              []string          `json:"tags"`
	TagIDs            []string          `json:"tag_ids"`
	CustomFields      map[string]string `json:"custom_fields"`
	Sequence          *string           `json:"sequence"`
	SequenceName      *string           `json:"sequence_name"`
	CreatedAt         string            `json:"created_at"`
	LastInteractionAt *string           `json:"last_interaction_at"`
}

func contactOut(c fake.ContactState) contactJSON {
	out := contactJSON{
		ID: c.ID, CompanyID: c.CompanyID, ChannelAccountID: c.AccountID, Channel: c.Channel,
		Phone: optString(c.Phone), ChannelIdentifier: c.ChannelIdentifier, Name: c.Name,
		Email: optString(c.Email), Gender: optString(c.Gender),
		Tags: c.Tags, TagIDs: c.TagIDs, CustomFields: c.CustomFields,
		Sequence: optString(c.Sequence), SequenceName: optString(c.SequenceName),
		CreatedAt: formatTime(c.CreatedAt), LastInteractionAt: optTime(c.LastInteractionAt),
	}
	if out.Tags == nil {
		out.Tags = []string{}
	}
	if out.TagIDs == nil {
		out.TagIDs = []string{}
	}
	if out.CustomFields == nil {
		out.CustomFields = map[string]string{}
	}
	return out
}

type itemsJSON[T any] struct {
	Items []T `json:"items"`
}

// companyJSON is a company, as GET /_fake/companies lists it.
type companyJSON struct {
	ID       string `json:"id"`
	Default  bool   `json:"default"`
	Contacts int    `json:"contacts"`
}

// companies: GET /_fake/companies: every company (tenant), the default one
// (the first of the seed) first, then in seed order. The ids are the values
// of ?company= on the state endpoints. API keys are not shown.
func (a *admin) companies(w http.ResponseWriter, _ *http.Request) error {
	out := itemsJSON[companyJSON]{Items: []companyJSON{}}
	for i, co := range a.srv.Companies() {
		out.Items = append(out.Items, companyJSON{ID: co.ID(), Default: i == 0, Contacts: len(co.Contacts())})
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

// company resolves ?company=<company id> (GET /_fake/companies lists them);
// absent: the default company.
func (a *admin) company(r *http.Request) (*fake.Company, error) {
	id := r.URL.Query().Get("company")
	if !r.URL.Query().Has("company") {
		return a.srv.Company(), nil
	}
	for _, co := range a.srv.Companies() {
		if co.ID() == id {
			return co, nil
		}
	}
	return nil, errorf(http.StatusNotFound, "not_found", "no company with id %q; GET /_fake/companies lists them", id)
}

// contacts: GET /_fake/state/contacts[?company=&phone=&account=]: the
// contacts of the default company, or of ?company=<id>; with phone, the one
// with that phone (normalized) on the channel account account, or (no
// account) the one with the most recent interaction on any account: 0 or 1
// items.
func (a *admin) contacts(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	co, err := a.company(r)
	if err != nil {
		return err
	}
	out := itemsJSON[contactJSON]{Items: []contactJSON{}}
	switch {
	case q.Has("phone"):
		if c, ok := co.ContactByPhone(q.Get("account"), q.Get("phone")); ok {
			out.Items = append(out.Items, contactOut(c))
		}
	case q.Has("account"):
		return badRequest("account needs phone")
	default:
		for _, c := range co.Contacts() {
			out.Items = append(out.Items, contactOut(c))
		}
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

func notFound(kind, id string) error {
	return errorf(http.StatusNotFound, "not_found", "no %s with id %q", kind, id)
}

func (a *admin) contact(w http.ResponseWriter, r *http.Request) error {
	c, ok := a.srv.Contact(r.PathValue("id"))
	if !ok {
		return notFound("contact", r.PathValue("id"))
	}
	writeJSON(w, http.StatusOK, contactOut(c))
	return nil
}

type conversationJSON struct {
	ID                string  `json:"id"`
	CompanyID         string  `json:"company_id"`
	ContactID         string  `json:"contact_id"`
	ChannelAccountID  string  `json:"channel_account_id"`
	Channel           string  `json:"channel"`
	ChannelIdentifier string  `json:"channel_identifier"`
	Status            string  `json:"status"`
	AssignedTo        *string `json:"assigned_to"`
	UnreadCount       int     `json:"unread_count"`
	CreatedAt         string  `json:"created_at"`
	LastInboundAt     *string `json:"last_inbound_at"`
	LastMessageAt     *string `json:"last_message_at"`
	MessageCount      int     `json:"message_count"`
}

func (a *admin) conversation(w http.ResponseWriter, r *http.Request) error {
	c, ok := a.srv.Conversation(r.PathValue("id"))
	if !ok {
		return notFound("conversation", r.PathValue("id"))
	}
	writeJSON(w, http.StatusOK, conversationJSON{
		ID: c.ID, CompanyID: c.CompanyID, ContactID: c.ContactID, ChannelAccountID: c.AccountID,
		Channel: c.Channel, ChannelIdentifier: c.ChannelIdentifier, Status: c.Status,
		AssignedTo: optString(c.AssignedTo), UnreadCount: c.UnreadCount, CreatedAt: formatTime(c.CreatedAt),
		LastInboundAt: optTime(c.LastInboundAt), LastMessageAt: optTime(c.LastMessageAt), MessageCount: c.MessageCount,
	})
	return nil
}

type messageJSON struct {
	ID             string  `json:"id"`
	ConversationID string  `json:"conversation_id"`
	Direction      string  `json:"direction"`
	Sender         string  `json:"sender"`
	Type           string  `json:"type"`
	At             string  `json:"at"`
	MediaStatus    *string `json:"media_status"`
	MediaID        *string `json:"media_id"`
	Reactions      int     `json:"reactions"`
}

func (a *admin) message(w http.ResponseWriter, r *http.Request) error {
	m, ok := a.srv.Message(r.PathValue("id"))
	if !ok {
		return notFound("message", r.PathValue("id"))
	}
	writeJSON(w, http.StatusOK, messageJSON{
		ID: m.ID, ConversationID: m.ConversationID, Direction: m.Direction, Sender: string(m.Sender),
		Type: m.Type, At: formatTime(m.At), MediaStatus: optString(m.MediaStatus), MediaID: optString(m.MediaID),
		Reactions: m.Reactions,
	})
	return nil
}
