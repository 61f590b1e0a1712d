// Package demotest starts the fake that an example's tests run the example
// against; only tests import it.
package demotest

import (
	"testing"
	"time"

	convo "github.com/convoapi/convo-go"
	"github.com/convoapi/convo-go/fake"
	"github.com/convoapi/convo-go/internal/testkit"
)

// Fake starts a fake of the service for tb (fake.New) that records every
// exchange for validation against the OpenAPI document (package
// wirerecord), with its clock pinned at now unless
// now is zero, and makes demo.Client use it as if it were the real service
// (through CONVO_BASE_URL and CONVO_API_KEY) for the rest of the test.
func Fake(tb testing.TB, now time.Time, opts ...fake.Option) *fake.Server {
	tb.Helper()
	opts = append(opts, fake.WithHandlerMiddleware(testkit.Middleware(tb)))
	if !now.IsZero() {
		opts = append(opts, fake.WithClock(fake.NewManualClock(now)))
	}
	s := fake.New(tb, opts...)
	tb.Setenv(convo.EnvBaseURL, s.URL())
	tb.Setenv(convo.EnvAPIKey, s.APIKey())
	return s
}
