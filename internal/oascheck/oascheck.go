// Package oascheck validates the fake's traffic against the OpenAPI document
// of package api: every request the fake receives and every answer it gives.
// The project's test binaries switch it on in TestMain with [Main]; it is
// test support and is never linked into the SDK, the fake or convofake.
//
// The validator is kin-openapi's openapi3filter: it reads OpenAPI 3.0.3 as
// generators do, reports the JSON pointer of a failing field, and understands
// security schemes, parameter styles and nullable, which a hand-rolled check
// would have to re-implement.
package oascheck

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"reflect"
	"sort"
	"strings"
	"sync"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"

	"github.com/convoapi/convo-go/api"
)

// maxCapture bounds what is read of a request or an answer for validation;
// the fake refuses request bodies over 1 MiB anyway.
const maxCapture = 4 << 20

// Load parses and validates the document.
func Load() (*openapi3.T, error) {
	loader := openapi3.NewLoader()
	doc, err := loader.LoadFromData(api.OpenAPI)
	if err != nil {
		return nil, fmt.Errorf("oascheck: load: %w", err)
	}
	if err := doc.Validate(context.Background()); err != nil {
		return nil, fmt.Errorf("oascheck: the document is not valid OpenAPI: %w", err)
	}
	return doc, nil
}

// Checker validates exchanges and keeps the tally. It is safe for concurrent use.
type Checker struct {
	doc    *openapi3.T
	routes []route

	mu         sync.Mutex
	requests   int            // requests validated and valid
	refused    int            // requests validated, refused by the document and by the fake (4xx)
	answers    int            // answers validated
	skipped    map[string]int // reason -> count (requests or answers not validated)
	mismatches []string
}

// route is one operation of the document.
type route struct {
	segs []string // path template cut at "/"; "{name}" segments are parameters
	r    *routers.Route
}

// New builds a Checker over the document.
func New() (*Checker, error) {
	doc, err := Load()
	if err != nil {
		return nil, err
	}
	c := &Checker{doc: doc, skipped: map[string]int{}}
	for _, path := range doc.Paths.InMatchingOrder() {
		item := doc.Paths.Value(path)
		for method, op := range item.Operations() {
			c.routes = append(c.routes, route{
				segs: strings.Split(strings.Trim(path, "/"), "/"),
				r:    &routers.Route{Spec: doc, Path: path, PathItem: item, Method: method, Operation: op},
			})
		}
	}
	return c, nil
}

// Stats is the tally of a Checker.
type Stats struct {
	Requests, Answers int            // validated, and valid
	Refused           int            // requests the document refuses (bad input, unknown route) that the fake refused too (4xx): malformed on purpose
	Skipped           map[string]int // by reason
	Mismatches        []string
}

// Stats returns a copy of the tally.
func (c *Checker) Stats() Stats {
	c.mu.Lock()
	defer c.mu.Unlock()
	s := Stats{Requests: c.requests, Refused: c.refused, Answers: c.answers, Skipped: map[string]int{}, Mismatches: append([]string(nil), c.mismatches...)}
	for k, v := range c.skipped {
		s.Skipped[k] = v
	}
	return s
}

func (c *Checker) count(validatedReq, validatedAns bool, skipReasons ...string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if validatedReq {
		c.requests++
	}
	if validatedAns {
		c.answers++
	}
	for _, r := range skipReasons {
		if r != "" {
			c.skipped[r]++
		}
	}
}

func (c *Checker) mismatch(format string, args ...any) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.mismatches = append(c.mismatches, fmt.Sprintf(format, args...))
}

// Skip reasons, as reported.
const (
	SkipOutsideAPI     = "outside the API (temporary attachment files, admin API)"
	SkipRequestNoAnswr = "request the document refuses, answered by a fault rule (5xx, 429) rather than a 4xx"
	SkipUnreadable     = "request body unreadable or oversized on purpose"
	SkipDropped        = "connection dropped by a fault rule: no answer"
	SkipUnknownRoute   = "request to a route the document does not have, answered by a fault rule, its answer checked as the error envelope"
	SkipHeadAnswer     = "answer to HEAD: no body to validate (the request is validated as the GET it mirrors)"
)

// refusedByBoth marks a request malformed on purpose: the document refuses
// it and the fake answered a 4xx, so both agree. It is tallied apart.
const refusedByBoth = "refused by both"

// Middleware wraps the fake's handler.
func (c *Checker) Middleware(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// The escaped path, as the fake routes it: an id holding "/" is one
		// segment.
		rel, inAPI := apiPath(r.URL.EscapedPath())
		if !inAPI {
			c.count(false, false, SkipOutsideAPI, SkipOutsideAPI)
			next.ServeHTTP(w, r)
			return
		}
		body, complete := captureBody(r)
		rec := &recorder{ResponseWriter: w}
		answered := false
		defer func() {
			if !answered { // a fault rule hijacked the connection and panicked
				c.count(false, false, SkipDropped, SkipDropped)
			}
		}()
		next.ServeHTTP(rec, r)
		answered = true
		if rec.status == 0 {
			c.count(false, false, SkipDropped, SkipDropped)
			return
		}
		c.check(r, rel, body, complete, rec)
	})
}

func (c *Checker) check(r *http.Request, rel string, body []byte, complete bool, rec *recorder) {
	method := r.Method
	if method == http.MethodHead {
		method = http.MethodGet // HEAD answers wherever GET does, without a body
	}
	rt, params := c.match(method, rel)
	if rt == nil {
		c.checkBareError(r, rec)
		return
	}
	opName := r.Method + " " + rt.Path + " (" + rt.Operation.OperationID + ")"
	opts := &openapi3filter.Options{
		MultiError:            true,
		IncludeResponseStatus: true,
		AuthenticationFunc:    authenticate,
	}
	clone := r.Clone(context.Background())
	clone.Method = method
	clone.Body = io.NopCloser(bytes.NewReader(body))
	in := &openapi3filter.RequestValidationInput{Request: clone, PathParams: params, Route: rt, Options: opts}

	reqOK, reqSkip := true, ""
	switch {
	case !complete:
		reqOK, reqSkip = false, SkipUnreadable
	default:
		if err := openapi3filter.ValidateRequest(context.Background(), in); err != nil {
			reqOK = false
			switch {
			case rec.status >= 200 && rec.status < 300:
				c.mismatch("%s: the fake answered %d to a request the document refuses: %s", opName, rec.status, strings.Join(describe(err), "; "))
			case rec.status >= 400 && rec.status < 500:
				reqSkip = refusedByBoth
			default:
				reqSkip = SkipRequestNoAnswr
			}
		}
	}

	ansOK, ansSkip := c.checkAnswer(r, opName, in, opts, rec), ""
	if r.Method == http.MethodHead {
		ansSkip = SkipHeadAnswer
	}
	switch reqSkip {
	case refusedByBoth:
		c.mu.Lock()
		c.refused++
		c.mu.Unlock()
		c.count(false, ansOK, ansSkip)
	case "":
		c.count(reqOK, ansOK, ansSkip)
	default:
		c.count(false, ansOK, reqSkip, ansSkip)
	}
}

// checkAnswer validates the answer against the operation; an answer to HEAD
// has no body to validate, and reports false (it is tallied as skipped).
func (c *Checker) checkAnswer(r *http.Request, opName string, in *openapi3filter.RequestValidationInput, opts *openapi3filter.Options, rec *recorder) bool {
	if r.Method == http.MethodHead {
		return false
	}
	out := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: in,
		Status:                 rec.status,
		Header:                 rec.Header(),
		Options:                opts,
	}
	out.SetBodyBytes(rec.body.Bytes())
	if err := openapi3filter.ValidateResponse(context.Background(), out); err != nil {
		for _, d := range describe(err) {
			c.mismatch("%s: answer %d: %s", opName, rec.status, d)
		}
		return false
	}
	return true
}

// checkBareError handles a request on a route the document does not have.
// The fake must refuse it (404 NOT_FOUND, or 405 on a documented path with
// another method), which agrees with the document; any success is a route
// the document lacks. The answer is validated as the error envelope.
func (c *Checker) checkBareError(r *http.Request, rec *recorder) {
	name := r.Method + " " + r.URL.Path + " (no operation)"
	if rec.status < 400 || rec.status == http.StatusUnauthorized {
		c.mismatch("%s: the fake answered %d on a route the document does not have", name, rec.status)
		return
	}
	if r.Method == http.MethodHead {
		c.count(false, false, SkipHeadAnswer)
		return
	}
	var v any
	if err := json.Unmarshal(rec.body.Bytes(), &v); err != nil {
		c.mismatch("%s: answer %d is not JSON: %v", name, rec.status, err)
		return
	}
	schema := c.doc.Components.Schemas["ErrorEnvelope"].Value
	if err := schema.VisitJSON(v, openapi3.MultiErrors()); err != nil {
		for _, d := range describe(err) {
			c.mismatch("%s: answer %d: %s", name, rec.status, d)
		}
		return
	}
	if rec.status == http.StatusNotFound || rec.status == http.StatusMethodNotAllowed {
		c.mu.Lock()
		c.refused++
		c.mu.Unlock()
		c.count(false, true)
		return
	}
	c.count(false, true, SkipUnknownRoute)
}

// match finds the operation for method and a path relative to /v1; one
// trailing slash is ignored, as the service does.
func (c *Checker) match(method, rel string) (*routers.Route, map[string]string) {
	segs := strings.Split(strings.TrimSuffix(strings.TrimPrefix(rel, "/"), "/"), "/")
	for _, rt := range c.routes {
		if rt.r.Method != method || len(rt.segs) != len(segs) {
			continue
		}
		params := map[string]string{}
		ok := true
		for i, s := range rt.segs {
			if strings.HasPrefix(s, "{") && strings.HasSuffix(s, "}") {
				if segs[i] == "" {
					ok = false
					break
				}
				v, err := url.PathUnescape(segs[i])
				if err != nil {
					v = segs[i]
				}
				params[s[1:len(s)-1]] = v
				continue
			}
			if s != segs[i] {
				ok = false
				break
			}
		}
		if ok {
			return rt.r, params
		}
	}
	return nil, nil
}

// authenticate checks that the header of the named scheme is present in its
// form; whether the key is right is the fake's business (401).
func authenticate(_ context.Context, in *openapi3filter.AuthenticationInput) error {
	h := in.RequestValidationInput.Request.Header
	var ok bool
	switch in.SecuritySchemeName {
	case "BearerAuth":
		ok = hasScheme(h.Get("Authorization"), "Bearer")
	case "ApiKeyAuth":
		ok = hasScheme(h.Get("Authorization"), "ApiKey")
	case "XApiKeyAuth":
		ok = h.Get("X-Api-Key") != ""
	}
	if !ok {
		return errors.New("no " + in.SecuritySchemeName + " header")
	}
	return nil
}

// hasScheme reports whether an Authorization value uses scheme, matched
// without regard to case as HTTP auth schemes are.
func hasScheme(auth, scheme string) bool {
	got, _, found := strings.Cut(strings.TrimSpace(auth), " ")
	return found && strings.EqualFold(got, scheme)
}

// apiPath strips /v1 or /api/v1.
func apiPath(p string) (string, bool) {
	for _, prefix := range []string{"/api/v1", "/v1"} {
		if rest, found := strings.CutPrefix(p, prefix); found && (rest == "" || rest[0] == '/') {
			return rest, true
		}
	}
	return "", false
}

// captureBody reads the request body for validation and puts back a body that
// reads the same bytes, then whatever the original had left or its error.
func captureBody(r *http.Request) (body []byte, complete bool) {
	if r.Body == nil || r.Body == http.NoBody {
		return nil, true
	}
	orig := r.Body
	b, err := io.ReadAll(io.LimitReader(orig, maxCapture))
	var rest io.Reader = orig
	if err != nil {
		rest = errReader{err}
	}
	r.Body = readCloser{io.MultiReader(bytes.NewReader(b), rest), orig}
	return b, err == nil && len(b) < maxCapture
}

type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }

type readCloser struct {
	io.Reader
	io.Closer
}

// recorder passes the answer through and keeps a copy of status and body.
type recorder struct {
	http.ResponseWriter
	status int
	body   bytes.Buffer
}

func (w *recorder) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *recorder) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	if w.body.Len()+len(b) <= maxCapture {
		w.body.Write(b)
	}
	return w.ResponseWriter.Write(b)
}

// Unwrap lets the fake's drop faults reach the connection.
func (w *recorder) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// describe flattens a validation error into lines naming the field (a JSON
// pointer), the value and the reason.
func describe(err error) []string {
	switch e := err.(type) {
	case openapi3.MultiError:
		var out []string
		for _, sub := range e {
			out = append(out, describe(sub)...)
		}
		return out
	case *openapi3filter.ResponseError:
		if e.Err != nil {
			return prefixed(e.Reason, describe(e.Err))
		}
		return []string{e.Reason}
	case *openapi3filter.RequestError:
		where := e.Reason
		if e.Parameter != nil {
			where = "parameter " + e.Parameter.In + " " + e.Parameter.Name
		} else if e.RequestBody != nil {
			where = "request body"
		}
		if e.Err != nil {
			return prefixed(where, describe(e.Err))
		}
		return []string{where + ": " + e.Reason}
	case *openapi3.SchemaError:
		ptr := pointer(e.JSONPointer())
		if kids := children(e.Origin); len(kids) > 0 {
			var out []string
			for _, k := range kids {
				out = append(out, describe(k)...) // kin-openapi gives nested errors their full path
			}
			return out
		}
		return []string{fmt.Sprintf("field %s = %s: %s", orRoot(ptr), short(e.Value), e.Reason)}
	}
	return []string{err.Error()}
}

// children finds the schema errors an error wraps: a list (allOf, oneOf,
// anyOf failures are lists of unexported types behind a fmt wrapper, hence
// reflection) or one schema error.
func children(err error) []error {
	for err != nil {
		if m, ok := err.(interface{ Unwrap() []error }); ok {
			return m.Unwrap()
		}
		if _, ok := err.(*openapi3.SchemaError); ok {
			return []error{err}
		}
		if v := reflect.ValueOf(err); v.Kind() == reflect.Slice {
			var out []error
			for i := range v.Len() {
				if e, ok := v.Index(i).Interface().(error); ok {
					out = append(out, e)
				}
			}
			return out
		}
		err = errors.Unwrap(err)
	}
	return nil
}

func prefixed(p string, lines []string) []string {
	if p == "" {
		return lines
	}
	for i := range lines {
		lines[i] = p + ": " + lines[i]
	}
	return lines
}

func pointer(parts []string) string {
	if len(parts) == 0 {
		return ""
	}
	return "/" + strings.Join(parts, "/")
}

func orRoot(p string) string {
	if p == "" {
		return "/"
	}
	return p
}

// short renders a value in at most 120 characters of JSON.
func short(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	if len(b) > 120 {
		return string(b[:117]) + "..."
	}
	return string(b)
}

// Summary is the one-line tally printed by [Main] under -v.
func (s Stats) Summary() string {
	var reasons []string
	total := 0
	for k, v := range s.Skipped {
		total += v
		reasons = append(reasons, fmt.Sprintf("%d %s", v, k))
	}
	sort.Strings(reasons)
	return fmt.Sprintf("oascheck: %d valid requests, %d malformed on purpose and refused by both the document and the answer (4xx), %d answers validated against api/openapi.yaml; %d skipped [%s]; %d mismatches",
		s.Requests, s.Refused, s.Answers, total, strings.Join(reasons, "; "), len(s.Mismatches))
}
