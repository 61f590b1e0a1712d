package conformance_test

import (
	"bytes"
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/convoapi/convo-go"
	"github.com/convoapi/convo-go/conformance"
	"github.com/convoapi/convo-go/fake"
	"github.com/convoapi/convo-go/internal/conformancetest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSeedFromRecordingReplaysWithoutDifference: a recording of a whole
// read of the demo data, turned into a seed; a fake started from that seed
// answers the recording's requests exactly as recorded.
func TestSeedFromRecordingReplaysWithoutDifference(t *testing.T) {
	recording := record(t, frozenDemo(t), conformance.RecorderOptions{})
	seed, notes, err := conformance.SeedFromRecording(bytes.NewReader(recording))
	require.NoError(t, err)
	t.Logf("notes: %q", notes)
	dst := fake.New(t, fake.WithSeed(seed))
	rep, err := conformance.Replay(t.Context(), bytes.NewReader(recording), conformance.ReplayConfig{BaseURL: dst.URL(), APIKey: dst.APIKey(), Pace: -1})
	require.NoError(t, err)
	var text strings.Builder
	require.NoError(t, rep.WriteText(&text))
	assert.Empty(t, rep.Differences, text.String())
	assert.Greater(t, rep.Exchanges, 30)
	t.Logf("%d exchanges, %d requests, %d differences", rep.Exchanges, rep.Sent, len(rep.Differences))
}

// tick moves a manual clock on by step before each request, as the
// service's clock runs while a recording is made.
func tick(clock *fake.Clock, step time.Duration) convo.Middleware {
	return func(req *http.Request, next convo.MiddlewareNext) (*http.Response, error) {
		clock.Advance(step)
		return next(req)
	}
}

// TestSeedFromRecordingReplaysClean: full and partial reads of the demo
// data and of a generated seed, recorded from a server whose clock runs
// (33 ms a request), each turned into a seed and replayed against a fake
// started from it: no difference, with the clock moved to each exchange's
// recorded time and without (the read window compared by rule).
func TestSeedFromRecordingReplaysClean(t *testing.T) {
	seeds := []struct {
		name string
		seed func() *fake.Seed
	}{{"demo", fake.DemoSeed}, {"generated", func() *fake.Seed { return conformancetest.Generate(3000) }}}
	reads := []struct {
		name string
		read func(testing.TB, *convo.Client)
	}{
		{"full", func(t testing.TB, c *convo.Client) { conformancetest.RecordEverything(t, c, recordStart) }},
		{"partial", conformancetest.RecordPartial},
	}
	for _, sd := range seeds {
		for _, rd := range reads {
			t.Run(sd.name+"/"+rd.name, func(t *testing.T) {
				clock := fake.NewManualClock(recordStart)
				src := fake.New(t, fake.WithSeed(sd.seed()), fake.WithClock(clock))
				var buf bytes.Buffer
				rec := conformance.NewRecorder(&buf, conformance.RecorderOptions{})
				rd.read(t, src.Client(convo.WithMiddleware(tick(clock, 33*time.Millisecond)), convo.WithMiddleware(rec.Middleware)))
				require.NoError(t, rec.Err())
				seed, notes, err := conformance.SeedFromRecording(bytes.NewReader(buf.Bytes()))
				require.NoError(t, err)
				t.Logf("%d notes, e.g. %q", len(notes), notes[:min(2, len(notes))])
				for _, moved := range []bool{true, false} {
					// A frozen clock that is not moved refills no rate limit: the
					// replay without SetClock runs without one.
					dst := fake.New(t, fake.WithSeed(seed), fake.WithRateLimit(0, 0))
					if moved {
						dst = fake.New(t, fake.WithSeed(seed))
					}
					cfg := conformance.ReplayConfig{BaseURL: dst.URL(), APIKey: dst.APIKey(), Pace: -1}
					if moved {
						cfg.SetClock = func(_ context.Context, at time.Time) error { dst.Clock().Set(at); return nil }
					}
					rep, err := conformance.Replay(t.Context(), bytes.NewReader(buf.Bytes()), cfg)
					require.NoError(t, err)
					var text strings.Builder
					require.NoError(t, rep.WriteText(&text))
					assert.Empty(t, rep.Differences, "clock moved %v:\n%s", moved, text.String())
					t.Logf("clock moved %v: %d exchanges, %d differences", moved, rep.Exchanges, len(rep.Differences))
				}
			})
		}
	}
}
