// Package testhook lets the project's own tests wrap the fake's HTTP handler,
// e.g. with the OpenAPI validator of internal/oascheck. Nothing outside this
// module can reach it, and without a wrapper installed it changes nothing.
package testhook

import (
	"net/http"
	"sync/atomic"
)

var wrapper atomic.Pointer[func(http.Handler) http.Handler]

// SetHandlerWrapper installs wrap for every fake handler built afterwards;
// nil removes it. A test binary calls it from TestMain, before any test runs.
func SetHandlerWrapper(wrap func(http.Handler) http.Handler) {
	if wrap == nil {
		wrapper.Store(nil)
		return
	}
	wrapper.Store(&wrap)
}

// Handler returns h wrapped by the installed wrapper, or h itself.
func Handler(h http.Handler) http.Handler {
	if p := wrapper.Load(); p != nil {
		return (*p)(h)
	}
	return h
}
