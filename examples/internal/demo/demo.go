// Package demo gives the examples their client: the real service when both
// CONVO_BASE_URL and CONVO_API_KEY are set, otherwise an embedded fake of the
// service (package fake) loaded with fake.DemoSeed, so that every example
// runs on a fresh machine with no account.
package demo

import (
	"errors"
	"fmt"
	"io"
	"os"

	convo "github.com/convoapi/convo-go"
	"github.com/convoapi/convo-go/fake"
)

// ErrHalfConfigured is returned by Client when only one of CONVO_BASE_URL and
// CONVO_API_KEY is set: the user meant to reach an account, so running on
// demo data instead would hide the mistake.
var ErrHalfConfigured = errors.New("half configured")

// Client returns a client and a function that releases what it holds.
//
// With CONVO_BASE_URL and CONVO_API_KEY both set it is convo.NewClient(opts...)
// reading them. With neither set it starts an embedded fake on a loopback
// address, loads fake.DemoSeed into it (one company with two chatapp
// numbers, support being 5511940000001, a botapp bot and a website chat),
// and points the client at it; either way one line on stderr says which is
// used (never the key). With only one of them set (the other missing or
// empty) it fails with an error wrapping ErrHalfConfigured that names the
// missing variable: an example then exits 1, never on demo data.
func Client(stderr io.Writer, opts ...convo.Option) (*convo.Client, func(), error) {
	base, key := os.Getenv(convo.EnvBaseURL), os.Getenv(convo.EnvAPIKey)
	switch {
	case Embedded():
		return embedded(stderr, opts)
	case key == "":
		return nil, nil, fmt.Errorf("%w: %s is set but %s is missing or empty; set both to use your account, or neither to run on demo data",
			ErrHalfConfigured, convo.EnvBaseURL, convo.EnvAPIKey)
	case base == "":
		return nil, nil, fmt.Errorf("%w: %s is set but %s is missing or empty; set both to use your account, or neither to run on demo data",
			ErrHalfConfigured, convo.EnvAPIKey, convo.EnvBaseURL)
	}
	c, err := convo.NewClient(opts...)
	if err != nil {
		return nil, nil, err
	}
	fmt.Fprintf(stderr, "Using the service at %s (from %s and %s).\n", c.BaseURL(), convo.EnvBaseURL, convo.EnvAPIKey)
	return c, c.CloseIdleConnections, nil
}

// Embedded reports whether Client runs on the embedded fake: neither
// CONVO_BASE_URL nor CONVO_API_KEY is set (or both are empty). Its address
// and its data (ids, times, cursors) are new at every run, so a program that
// keeps state between runs tells it apart from a service by this, not by the
// client's BaseURL.
func Embedded() bool {
	return os.Getenv(convo.EnvBaseURL) == "" && os.Getenv(convo.EnvAPIKey) == ""
}

// embedded starts the fake with the demo data and a client on it.
func embedded(stderr io.Writer, opts []convo.Option) (*convo.Client, func(), error) {
	srv := fake.NewServer()
	if err := srv.Load(fake.DemoSeed()); err != nil {
		srv.Close()
		return nil, nil, fmt.Errorf("demo data: %w", err)
	}
	c := srv.Client(opts...) // the fake's URL and key, then opts
	fmt.Fprintf(stderr, "Using an embedded fake with demo data at %s (set %s and %s to use your account).\n",
		srv.URL(), convo.EnvBaseURL, convo.EnvAPIKey)
	return c, func() { c.CloseIdleConnections(); srv.Close() }, nil
}
