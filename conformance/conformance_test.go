package conformance_test

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"slices"
	"testing"
	"testing/synctest"
	"time"

	"github.com/convoapi/convo-go/conformance"
	"github.com/convoapi/convo-go/fake"
	"github.com/convoapi/convo-go/internal/conformancetest"
	"github.com/convoapi/convo-go/internal/testkit"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRunAgainstTheFake is the acceptance run: the full suite, anomaly
// checks included, against the in-process fake with the demo data and with
// a generated seed of a few thousand records. Every check passes or is
// skipped with a reason.
func TestRunAgainstTheFake(t *testing.T) {
	tests := []struct {
		name string
		seed *fake.Seed
	}{
		{"demo", fake.DemoSeed()},
		{"generated", conformancetest.Generate(3000)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := fake.New(t, fake.WithSeed(tt.seed))
			rep := conformance.RunTest(t, conformance.Config{BaseURL: s.URL(), APIKey: s.APIKey(), Anomalies: true, Pace: -1})
			assert.Zero(t, rep.Failed)
			assert.Equal(t, 0, rep.ExitCode())
			for _, res := range rep.Results {
				if res.Status == conformance.Skip {
					assert.NotEmpty(t, res.Reason, res.ID)
				}
			}
			ch, ct, cv, msg := conformancetest.Size(tt.seed)
			t.Logf("%d channels, %d contacts, %d conversations, %d messages: %s", ch, ct, cv, msg, rep.Summary())
		})
	}
}

// TestRunReadOnlySendsNoWrite checks, in the fake's journal, that a run
// without Write sends only GET requests, at most three with a bad key, one
// anomaly report, and fewer requests than the budget.
func TestRunReadOnlySendsNoWrite(t *testing.T) {
	s := fake.New(t, fake.WithSeed(fake.DemoSeed()))
	rep, err := conformance.Run(t.Context(), conformance.Config{BaseURL: s.URL(), APIKey: s.APIKey(), Pace: -1})
	require.NoError(t, err)
	assert.Zero(t, rep.Failed)
	journal := s.Requests()
	require.NotEmpty(t, journal)
	bad, anomalies := 0, 0
	for _, r := range journal {
		assert.Contains(t, []string{http.MethodGet}, r.Method, "%s %s", r.Method, r.Path)
		if r.Status == http.StatusUnauthorized {
			bad++
		}
		if r.Path == "/conversations/anomalies" {
			anomalies++
		}
	}
	assert.Equal(t, conformance.MaxBadKeyRequests, bad)
	assert.Equal(t, 1, anomalies)
	assert.Equal(t, len(journal), rep.Requests, "the report counts what the server received")
	assert.Less(t, rep.Requests, conformance.DefaultMaxRequests)
	assert.Zero(t, rep.WriteRequests)
	t.Logf("read-only run: %d requests, %d with a bad key, %d anomaly report", len(journal), bad, anomalies)
}

// TestRunWriteMode writes on the contact it is given, and a second run
// finds it (CONTACT_EXISTS) and passes too.
func TestRunWriteMode(t *testing.T) {
	s := fake.New(t, fake.WithSeed(fake.DemoSeed()))
	cfg := conformance.Config{BaseURL: s.URL(), APIKey: s.APIKey(), Pace: -1,
		Write: &conformance.WriteTargets{PhoneNumberID: "5511940000001", PhoneNumber: "+55 11 90000-1234"}}
	for run := range 2 {
		rep, err := conformance.Run(t.Context(), cfg)
		require.NoError(t, err)
		for _, res := range rep.Results {
			assert.NotEqual(t, conformance.Fail, res.Status, "run %d: %s: %s (%s)", run, res.ID, res.Reason, res.Excerpt)
		}
		assert.Equal(t, "write", rep.Mode)
		assert.Positive(t, rep.WriteRequests)
	}
	assert.Equal(t, 8, s.CountRequests(http.MethodPost, "/chatapp/contacts"), "each run creates twice and tries two refused creations")
}

// TestRunKeepsItsPace runs the suite in a synctest bubble against the fake
// on its in-memory network, with the default pace: no two requests leave
// closer than the pace, and the whole run stays within the budget.
func TestRunKeepsItsPace(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := fake.New(t, fake.WithSeed(fake.DemoSeed()), fake.WithInMemoryNetwork())
		start := time.Now()
		rep, err := conformance.Run(t.Context(), conformance.Config{BaseURL: s.URL(), APIKey: s.APIKey(), HTTPClient: s.HTTPClient()})
		require.NoError(t, err)
		assert.Zero(t, rep.Failed)
		journal := s.Requests()
		require.Len(t, journal, rep.Requests)
		for i := 1; i < len(journal); i++ {
			gap := journal[i].Time.Sub(journal[i-1].Time)
			assert.GreaterOrEqual(t, gap, conformance.DefaultPace, "requests %d and %d", i-1, i)
		}
		elapsed := time.Since(start)
		perSecond := float64(rep.Requests-1) / journal[len(journal)-1].Time.Sub(journal[0].Time).Seconds()
		assert.LessOrEqual(t, perSecond, float64(time.Second/conformance.DefaultPace))
		t.Logf("%d requests in %s of bubble time: %.2f a second", rep.Requests, elapsed, perSecond)
	})
}

// TestRunStopsAtTheBudget gives a budget too small for the run: the
// checks it cannot pay for are skipped, and nothing more is sent.
func TestRunStopsAtTheBudget(t *testing.T) {
	s := fake.New(t, fake.WithSeed(fake.DemoSeed()))
	rep, err := conformance.Run(t.Context(), conformance.Config{BaseURL: s.URL(), APIKey: s.APIKey(), Pace: -1, MaxRequests: 20})
	require.NoError(t, err)
	assert.Equal(t, 20, rep.Requests)
	assert.Len(t, s.Requests(), 20)
	res, ok := rep.Result("sdk/typed-error")
	require.True(t, ok)
	assert.Equal(t, conformance.Skip, res.Status)
	assert.Contains(t, res.Reason, "budget")
}

// TestRunStopsAtTheFirst429: a fake with a tiny rate limit answers 429;
// the run sends nothing after it.
func TestRunStopsAtTheFirst429(t *testing.T) {
	s := fake.New(t, fake.WithSeed(fake.DemoSeed()), fake.WithRateLimit(0.001, 10))
	rep, err := conformance.Run(t.Context(), conformance.Config{BaseURL: s.URL(), APIKey: s.APIKey(), Pace: -1})
	require.NoError(t, err)
	journal := s.Requests()
	require.Len(t, journal, rep.Requests)
	assert.Equal(t, http.StatusTooManyRequests, journal[len(journal)-1].Status, "nothing is sent after the 429")
	assert.Contains(t, rep.Stopped, "429")
	assert.Equal(t, 2, rep.ExitCode())
	assert.Contains(t, rep.RateLimitHeaders, "Retry-After")
}

func TestRunCannotRun(t *testing.T) {
	s := fake.New(t)
	tests := []struct {
		name string
		cfg  conformance.Config
	}{
		{"no base URL", conformance.Config{APIKey: "k"}},
		{"no /v1", conformance.Config{BaseURL: "http://127.0.0.1:1/api", APIKey: "k"}},
		{"no key", conformance.Config{BaseURL: s.URL()}},
		{"plain http beyond loopback", conformance.Config{BaseURL: "http://example.com/v1", APIKey: "k"}},
		{"write without ids", conformance.Config{BaseURL: s.URL(), APIKey: "k", Write: &conformance.WriteTargets{}}},
		{"unreachable", conformance.Config{BaseURL: "http://127.0.0.1:1/v1", APIKey: "k", Pace: -1}},
		{"key refused in every form", conformance.Config{BaseURL: s.URL(), APIKey: "not-the-key", Pace: -1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := conformance.Run(t.Context(), tt.cfg)
			require.ErrorIs(t, err, conformance.ErrCannotRun)
			assert.NotContains(t, err.Error(), "not-the-key")
		})
	}
}

// TestRunNeverShowsTheKey runs against a fake whose key needs escaping,
// through a proxy that echoes the key in every escaping into each answer:
// neither the text nor the JSON report holds it in any escaping.
func TestRunNeverShowsTheKey(t *testing.T) {
	for _, key := range testkit.Keys {
		t.Run(key, func(t *testing.T) {
			s := demoHandler(t, fake.WithAPIKey(key))
			ts := conformancetest.Proxy(t, s.Handler(), conformancetest.Alteration{Resp: conformancetest.EchoKey(key), Header: conformancetest.EchoKeyHeaders(key)})
			rep, err := conformance.Run(t.Context(), conformance.Config{BaseURL: ts.URL + "/v1", APIKey: key, Anomalies: true, Pace: -1})
			require.NoError(t, err)
			var text, js bytes.Buffer
			require.NoError(t, rep.WriteText(&text))
			require.NoError(t, rep.WriteJSON(&js))
			assert.Contains(t, rep.RateLimitHeaders, "X-Ratelimit-Key", "the headers were seen")
			for name, esc := range testkit.Escapings {
				assert.NotContains(t, text.String(), esc(key), name)
				assert.NotContains(t, js.String(), esc(key), name)
			}
		})
	}
}

func TestRunTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := fake.New(t, fake.WithSeed(fake.DemoSeed()), fake.WithInMemoryNetwork())
		rep, err := conformance.Run(context.Background(), conformance.Config{BaseURL: s.URL(), APIKey: s.APIKey(), HTTPClient: s.HTTPClient(), Timeout: 3 * time.Second})
		require.NoError(t, err)
		assert.Contains(t, rep.Stopped, "time is up")
		assert.Equal(t, 2, rep.ExitCode())
		assert.LessOrEqual(t, rep.Requests, 16)
		assert.True(t, slices.ContainsFunc(rep.Results, func(r conformance.Result) bool { return r.Status == conformance.Skip }))
		assert.False(t, errors.Is(err, context.DeadlineExceeded))
	})
}
