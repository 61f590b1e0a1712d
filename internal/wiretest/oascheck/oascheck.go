// Package oascheck validates HTTP traffic against the OpenAPI document of
// package api. A test switches it on where it starts a fake or a client:
//
//	s := fake.New(t, fake.WithHandlerMiddleware(oascheck.Middleware(t)))
//	hc := &http.Client{Transport: oascheck.Transport(t, http.DefaultTransport)}
//
// Every request and answer is then checked, and each mismatch fails t when
// the test ends, naming the operation, the field (a JSON pointer) and the
// value. The tests of the core module cannot import it (their module does
// not require kin-openapi): they record their exchanges with package
// wirerecord, and a Checker validates the recording ([Checker.Check]). It is
// test support, in the test module internal/wiretest: it is never linked
// into the SDK, the fake or convofake, and keeps no process-wide state.
//
// The published document is open where the specification is (objects may
// grow, some values are x-extensible-enum); the checks use its strict
// reading (Strict), so that a field or a value the fake invents is caught.
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
	"maps"
	"net/http"
	"net/url"
	"reflect"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"

	"github.com/convoapi/convo-go/api"
)

// Load parses and validates the document.
func Load() (*openapi3.T, error) {
	doc, err := openapi3.NewLoader().LoadFromData(api.OpenAPI())
	if err == nil {
		err = doc.Validate(context.Background())
	}
	if err != nil {
		return nil, fmt.Errorf("oascheck: api/openapi.yaml is not valid OpenAPI 3.0.3: %w", err)
	}
	return doc, nil
}

// spec is the document in its strict reading (Strict) and its operations,
// parsed once per test binary and only read afterwards.
type spec struct {
	doc    *openapi3.T
	routes []*routers.Route
}

var loadSpec = sync.OnceValues(func() (*spec, error) {
	doc, err := Load()
	if err != nil {
		return nil, err
	}
	Strict(doc)
	sp := &spec{doc: doc}
	for _, path := range doc.Paths.InMatchingOrder() {
		item := doc.Paths.Value(path)
		for method, op := range item.Operations() {
			sp.routes = append(sp.routes, &routers.Route{Spec: doc, Path: path, PathItem: item, Method: method, Operation: op})
		}
	}
	return sp, nil
})

// Checker validates exchanges and keeps the tally. It is safe for concurrent use.
type Checker struct {
	*spec
	mu sync.Mutex
	st Stats
}

// New builds a Checker over the document.
func New() (*Checker, error) {
	sp, err := loadSpec()
	if err != nil {
		return nil, err
	}
	return &Checker{spec: sp, st: Stats{Skipped: map[string]int{}}}, nil
}

// Stats is the tally of a Checker.
type Stats struct {
	Exchanges         int            // requests seen
	Requests, Answers int            // validated, and valid
	Refused           int            // requests the document refuses (bad input, unknown route) that were refused too (4xx): malformed on purpose
	Skipped           map[string]int // by reason
	Mismatches        []string       // each once, the first maxReported
}

// maxReported bounds the mismatches a Checker keeps.
const maxReported = 40

// Stats returns a copy of the tally.
func (c *Checker) Stats() Stats {
	c.mu.Lock()
	defer c.mu.Unlock()
	s := c.st
	s.Skipped, s.Mismatches = maps.Clone(s.Skipped), slices.Clone(s.Mismatches)
	return s
}

// Summary is the one-line tally a test logs when it ends.
func (s Stats) Summary() string {
	var reasons []string
	total := 0
	for k, v := range s.Skipped {
		total += v
		reasons = append(reasons, fmt.Sprintf("%d %s", v, k))
	}
	sort.Strings(reasons)
	return fmt.Sprintf("oascheck: %d exchanges: %d valid requests, %d malformed on purpose and refused by both the document and the answer (4xx), %d answers validated against api/openapi.yaml; %d skipped [%s]; %d mismatches",
		s.Exchanges, s.Requests, s.Refused, s.Answers, total, strings.Join(reasons, "; "), len(s.Mismatches))
}

func (c *Checker) tally(f func(*Stats)) {
	c.mu.Lock()
	defer c.mu.Unlock()
	f(&c.st)
}

func (c *Checker) skip(reason string) { c.tally(func(s *Stats) { s.Skipped[reason]++ }) }

func (c *Checker) mismatch(format string, args ...any) {
	line := fmt.Sprintf(format, args...)
	c.tally(func(s *Stats) {
		if len(s.Mismatches) < maxReported && !slices.Contains(s.Mismatches, line) {
			s.Mismatches = append(s.Mismatches, line)
		}
	})
}

// Skip reasons, as reported.
const (
	SkipOutsideAPI     = "outside the API (temporary attachment files, admin API)"
	SkipUndocumented   = "request to a route the document does not have, answered by a canned fixture (Client.Do)"
	SkipRequestNoAnswr = "request the document refuses, answered by a fault rule (5xx, 429) rather than a 4xx"
	SkipUnreadable     = "request body unreadable or oversized on purpose"
	SkipDropped        = "connection dropped by a fault rule: no answer"
	SkipUnknownRoute   = "request to a route the document does not have, answered by a fault rule, its answer checked as the error envelope"
	SkipHeadAnswer     = "answer to HEAD: no body to validate (the request is validated as the GET it mirrors)"
)

// exchange is one request and its answer as captured on either side.
type exchange struct {
	r        *http.Request
	body     []byte // the request body, as captured
	complete bool   // whether body is all of it
	status   int    // 0: no answer (the connection dropped)
	header   http.Header
	answer   []byte
	answers  bool // whether to validate the answer (not a canned fixture)
}

// check validates an exchange and tallies the outcome. A request the
// document refuses is a mismatch only when it was accepted (2xx); a test
// that sends bad input on purpose sees a 4xx.
func (c *Checker) check(x exchange) {
	c.tally(func(s *Stats) { s.Exchanges++ })
	rel, inAPI := apiPath(x.r.URL.EscapedPath())
	switch {
	case !inAPI:
		c.skip(SkipOutsideAPI)
		return
	case x.status == 0:
		c.skip(SkipDropped)
		return
	}
	method := x.r.Method
	if method == http.MethodHead {
		method = http.MethodGet // HEAD answers wherever GET does, without a body
	}
	rt, params := c.match(method, rel)
	switch {
	case rt == nil && x.answers:
		c.checkBareError(x)
		return
	case rt == nil:
		c.skip(SkipUndocumented)
		return
	}
	opName := x.r.Method + " " + rt.Path + " (" + rt.Operation.OperationID + ")"
	opts := &openapi3filter.Options{MultiError: true, IncludeResponseStatus: true, AuthenticationFunc: authenticate,
		SchemaValidationOptions: schemaOptions()}
	clone := x.r.Clone(context.Background())
	clone.Method = method
	clone.Body = io.NopCloser(bytes.NewReader(x.body))
	in := &openapi3filter.RequestValidationInput{Request: clone, PathParams: params, Route: rt, Options: opts}
	if !x.complete {
		c.skip(SkipUnreadable)
	} else if err := openapi3filter.ValidateRequest(context.Background(), in); err == nil {
		c.tally(func(s *Stats) { s.Requests++ })
	} else if x.status >= 200 && x.status < 300 {
		c.mismatch("%s: answered %d to a request the document refuses: %s", opName, x.status, strings.Join(describe(err), "; "))
	} else if x.status >= 400 && x.status < 500 {
		c.tally(func(s *Stats) { s.Refused++ })
	} else {
		c.skip(SkipRequestNoAnswr)
	}
	switch {
	case !x.answers:
	case x.r.Method == http.MethodHead:
		c.skip(SkipHeadAnswer)
	default:
		out := &openapi3filter.ResponseValidationInput{RequestValidationInput: in, Status: x.status, Header: x.header, Options: opts}
		out.SetBodyBytes(x.answer)
		if err := openapi3filter.ValidateResponse(context.Background(), out); err != nil {
			for _, d := range describe(err) {
				c.mismatch("%s: answer %d: %s", opName, x.status, d)
			}
			return
		}
		c.tally(func(s *Stats) { s.Answers++ })
	}
}

// checkBareError handles a request on a route the document does not have.
// It must be refused (404 NOT_FOUND, or 405 on a documented path with
// another method), which agrees with the document; any success is a route
// the document lacks. The answer is validated as the error envelope.
func (c *Checker) checkBareError(x exchange) {
	name := x.r.Method + " " + x.r.URL.Path + " (no operation)"
	if x.status < 400 || x.status == http.StatusUnauthorized {
		c.mismatch("%s: answered %d on a route the document does not have", name, x.status)
		return
	}
	if x.r.Method == http.MethodHead {
		c.skip(SkipHeadAnswer)
		return
	}
	var v any
	if err := json.Unmarshal(x.answer, &v); err != nil {
		c.mismatch("%s: answer %d is not JSON: %v", name, x.status, err)
		return
	}
	if err := c.doc.Components.Schemas["ErrorEnvelope"].Value.VisitJSON(v, append(schemaOptions(), openapi3.MultiErrors())...); err != nil {
		for _, d := range describe(err) {
			c.mismatch("%s: answer %d: %s", name, x.status, d)
		}
		return
	}
	c.tally(func(s *Stats) {
		s.Answers++
		if x.status == http.StatusNotFound || x.status == http.StatusMethodNotAllowed {
			s.Refused++
		} else {
			s.Skipped[SkipUnknownRoute]++
		}
	})
}

// match finds the operation for method and a path relative to /v1; one
// trailing slash is ignored, as the service does.
func (c *Checker) match(method, rel string) (*routers.Route, map[string]string) {
	segs := strings.Split(strings.TrimSuffix(strings.TrimPrefix(rel, "/"), "/"), "/")
next:
	for _, rt := range c.routes {
		tmpl := strings.Split(strings.Trim(rt.Path, "/"), "/") // "{name}" segments are parameters
		if rt.Method != method || len(tmpl) != len(segs) {
			continue
		}
		params := map[string]string{}
		for i, s := range tmpl {
			if name, ok := strings.CutPrefix(s, "{"); ok && segs[i] != "" {
				v, err := url.PathUnescape(segs[i])
				if err != nil {
					v = segs[i]
				}
				params[strings.TrimSuffix(name, "}")] = v
			} else if s != segs[i] {
				continue next
			}
		}
		return rt, params
	}
	return nil, nil
}

// authenticate checks that the header of the named scheme is present in its
// form; whether the key is right is the server's business (401).
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

// apiPath returns the escaped path after its first "/v1" segment, as the
// fake routes it (/v1/..., /api/v1/...) and as a client sends it under any
// base URL; an id holding "/" stays one segment.
func apiPath(p string) (string, bool) {
	i := strings.Index(p+"/", "/v1/")
	if i < 0 {
		return "", false
	}
	return p[i+len("/v1"):], true
}

// describe flattens a validation error into lines naming the field (a JSON
// pointer), the value and the reason.
func describe(err error) []string {
	switch e := err.(type) {
	case openapi3.MultiError:
		return describeAll(e)
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
		if kids := children(e.Origin); len(kids) > 0 {
			return describeAll(kids) // kin-openapi gives nested errors their full path
		}
		return []string{fmt.Sprintf("field /%s = %s: %s", strings.Join(e.JSONPointer(), "/"), short(e.Value), e.Reason)}
	}
	return []string{err.Error()}
}

func describeAll(errs []error) (out []string) {
	for _, e := range errs {
		out = append(out, describe(e)...)
	}
	return out
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
