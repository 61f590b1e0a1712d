package oascheck

import (
	"context"
	"net/http"
	"strings"
	"sync/atomic"

	"github.com/getkin/kin-openapi/openapi3filter"
)

// active is the Checker that [Main] installed, for [Transport].
var active atomic.Pointer[Checker]

// Skip reasons of the SDK-side transport.
const (
	SkipSDKNotDocumented = "SDK request to an endpoint the specification does not show (Client.Do) or outside /v1"
)

// Transport wraps the transport of a test's SDK client so that every request
// the SDK sends is validated against the document before next answers it.
// Answers are not validated here: they are the test's canned fixtures, often
// off the contract on purpose. Outside [Main] it returns next unchanged.
func Transport(next http.RoundTripper) http.RoundTripper {
	c := active.Load()
	if c == nil {
		return next
	}
	return roundTripper{c: c, next: next}
}

type roundTripper struct {
	c    *Checker
	next http.RoundTripper
}

func (rt roundTripper) RoundTrip(r *http.Request) (*http.Response, error) {
	check := rt.c.checkSDKRequest(r)
	resp, err := rt.next.RoundTrip(r)
	status := 0
	if err == nil {
		status = resp.StatusCode
	}
	check(status)
	return resp, err
}

// checkSDKRequest validates r before it is sent and returns the function
// that tallies the outcome once the answer's status is known: a request the
// document refuses is a mismatch only when the mock accepted it (2xx); a
// test that makes the SDK send bad input on purpose answers it with a 4xx.
func (c *Checker) checkSDKRequest(r *http.Request) func(status int) {
	idx := strings.Index(r.URL.Path, "/v1/")
	if idx < 0 {
		return func(int) { c.count(false, false, SkipSDKNotDocumented) }
	}
	route, params := c.match(r.Method, r.URL.Path[idx+len("/v1"):])
	if route == nil {
		return func(int) { c.count(false, false, SkipSDKNotDocumented) }
	}
	body, complete := captureBody(r)
	if !complete {
		return func(int) { c.count(false, false, SkipUnreadable) }
	}
	clone := r.Clone(context.Background())
	clone.Body = readCloser{strings.NewReader(string(body)), http.NoBody}
	in := &openapi3filter.RequestValidationInput{
		Request: clone, PathParams: params, Route: route,
		Options: &openapi3filter.Options{MultiError: true, AuthenticationFunc: authenticate},
	}
	err := openapi3filter.ValidateRequest(context.Background(), in)
	return func(status int) {
		switch {
		case err == nil:
			c.count(true, false)
		case status >= 400 && status < 500:
			c.mu.Lock()
			c.refused++
			c.mu.Unlock()
		case status >= 200 && status < 300:
			c.mismatch("%s %s (%s): the SDK sent a request the document refuses, and the mock accepted it: %s",
				r.Method, route.Path, route.Operation.OperationID, strings.Join(describe(err), "; "))
		default:
			c.count(false, false, SkipRequestNoAnswr)
		}
	}
}
