package wiretest

import (
	"net/http"
	"testing"
	"time"

	"github.com/convoapi/convo-go/fake"
	"github.com/convoapi/convo-go/internal/testkit"
	"github.com/convoapi/convo-go/internal/wiretest/oascheck"
)

// The core module's directories, from this one (the tests run in it).
const (
	coreDir = "../.."
	fakeDir = "../../fake"
)

// t0 is the manual clock's start in the fake's tests.
var t0 = time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)

// newServer starts a fake on a manual clock whose every exchange is
// validated against the document.
func newServer(t *testing.T, opts ...fake.Option) *fake.Server {
	t.Helper()
	return fake.New(t, append([]fake.Option{fake.WithClock(fake.NewManualClock(t0)), fake.WithHandlerMiddleware(oascheck.Middleware(t))}, opts...)...)
}

// answer is an answer read in full.
type answer = testkit.Answer

// get sends GET /v1+path to the fake with its API key.
func get(t *testing.T, s *fake.Server, path string) answer {
	t.Helper()
	return testkit.Send(t, s.HTTPClient(), http.MethodGet, s.URL()+path, "Bearer "+s.APIKey(), "")
}
