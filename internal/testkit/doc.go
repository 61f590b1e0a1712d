// Package testkit is the test support of the repository's tests that is
// not a test of its own: the client side of the tests that drive a running
// convofake (callfake.go), the CPU measure of a handler against a static
// one (cpupair.go), the forms a leaked API key may take (keyforms.go), a
// buffer several goroutines write while a test reads it (syncbuf.go), and
// the recording of HTTP exchanges that internal/wiretest validates against
// api/openapi.yaml (wirerecord.go). It imports neither convo nor fake, so
// that their own tests may use it; internal/conformancetest holds the
// support that needs them.
package testkit
