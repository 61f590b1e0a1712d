package main

import (
	"bytes"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/convoapi/convo-go"
	"github.com/convoapi/convo-go/conformance"
	"github.com/convoapi/convo-go/fake"
	"github.com/convoapi/convo-go/internal/conformancetest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestConformance runs the conformance suite, anomaly checks included,
// against convofake over HTTP: with its demo data, and with a generated
// seed file of a few thousand records. Every check passes or is skipped
// with a reason.
func TestConformance(t *testing.T) {
	seedFile := filepath.Join(t.TempDir(), "generated.json")
	writeSeedFile(t, seedFile, conformancetest.Generate(3000))
	tests := []struct {
		name string
		args []string
	}{
		{"demo", nil},
		{"generated", []string{"--seed", seedFile}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := start(t, tt.args...)
			rep := conformance.RunTest(t, conformance.Config{BaseURL: p.base + "/v1", APIKey: fake.DefaultAPIKey, Anomalies: true, Pace: -1})
			assert.Zero(t, rep.Failed)
			assert.Equal(t, 0, rep.ExitCode())
			t.Logf("%s", rep.Summary())
		})
	}
	t.Run("demo, every check", func(t *testing.T) {
		p := start(t, rateLimitReached...)
		rep := conformance.RunTest(t, everyCheck(t, p, p.base))
		assert.Zero(t, rep.Failed)
		assert.Zero(t, rep.Skipped, "writes, custom fields read back and the rate limit included")
		assert.Equal(t, 0, rep.ExitCode())
		t.Logf("%s", rep.Summary())
	})
}

// rateLimitReached are the flags of a convofake whose request limit a run
// reaches and which does not refill during it.
var rateLimitReached = []string{"--rate-limit", "0.001", "--rate-burst", "700"}

// everyCheck is a run of every check against the convofake p through the
// server at base: writes on the demo's first chatapp number, custom fields
// read back through p's admin API, and the rate-limit check.
func everyCheck(t *testing.T, p *proc, base string) conformance.Config {
	fields, err := conformance.ConvofakeCustomFields(p.base+"/_fake", testAdminToken, nil)
	require.NoError(t, err)
	return conformance.Config{BaseURL: base + "/v1", APIKey: fake.DefaultAPIKey, Anomalies: true, Pace: -1, MaxRequests: 2000,
		Write:        &conformance.WriteTargets{PhoneNumberID: "5511940000001", PhoneNumber: "5511900001111"},
		CustomFields: fields, SpendRateLimit: true}
}

func writeSeedFile(t *testing.T, path string, seed *fake.Seed) {
	t.Helper()
	f, err := os.Create(path)
	require.NoError(t, err)
	require.NoError(t, conformance.WriteSeed(f, seed))
	require.NoError(t, f.Close())
}

// TestConformanceHasTeeth puts a proxy in front of convofake that alters
// one thing at a time in its answers or acceptance; the suite reports each.
func TestConformanceHasTeeth(t *testing.T) {
	p := start(t, "--rate-limit", "0")
	target, err := url.Parse(p.base)
	require.NoError(t, err)
	upstream := httputil.NewSingleHostReverseProxy(target)
	caught := 0
	for _, alt := range conformancetest.Alterations {
		t.Run(alt.Name, func(t *testing.T) {
			proxy := conformancetest.Proxy(t, upstream, alt)
			cfg := everyCheck(t, p, proxy.URL)
			cfg.SpendRateLimit = false // p has no limit: it serves every alteration
			if alt.Want == "auth/forms-count-alike" {
				limited := start(t, rateLimitReached...)
				target, err := url.Parse(limited.base)
				require.NoError(t, err)
				proxy = conformancetest.Proxy(t, httputil.NewSingleHostReverseProxy(target), alt)
				cfg = everyCheck(t, limited, proxy.URL)
			}
			rep, err := conformance.Run(t.Context(), cfg)
			require.NoError(t, err)
			if alt.Want == "stopped" {
				if assert.NotEmpty(t, rep.Stopped) {
					caught++
				}
				return
			}
			res, ok := rep.Result(alt.Want)
			require.True(t, ok, "no check %s", alt.Want)
			if assert.Equal(t, conformance.Fail, res.Status, "%s: %s", alt.Want, res.Reason) {
				caught++
			}
		})
	}
	t.Logf("score: %d of %d alterations reported", caught, len(conformancetest.Alterations))
}

// TestConformanceRecordSeedReplay records a whole read of one convofake
// (frozen clock, demo data), starts a second convofake from the seed the
// recording converts into, and replays the recording against it: no
// difference.
func TestConformanceRecordSeedReplay(t *testing.T) {
	at := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
	src := start(t, "--clock", "frozen:"+at.Format(time.RFC3339))
	var rec bytes.Buffer
	recorder := conformance.NewRecorder(&rec, conformance.RecorderOptions{})
	client, err := convo.NewClient(convo.WithBaseURL(src.base+"/v1"), convo.WithAPIKey(fake.DefaultAPIKey), convo.WithMiddleware(recorder.Middleware))
	require.NoError(t, err)
	conformancetest.RecordEverything(t, client, at)
	require.NoError(t, recorder.Err())

	seed, notes, err := conformance.SeedFromRecording(bytes.NewReader(rec.Bytes()))
	require.NoError(t, err)
	t.Logf("notes: %q", notes)
	seedFile := filepath.Join(t.TempDir(), "from-recording.json")
	writeSeedFile(t, seedFile, seed)
	dst := start(t, "--seed", seedFile)

	rep, err := conformance.Replay(t.Context(), bytes.NewReader(rec.Bytes()), conformance.ReplayConfig{BaseURL: dst.base + "/v1", APIKey: fake.DefaultAPIKey, Pace: -1})
	require.NoError(t, err)
	var text bytes.Buffer
	require.NoError(t, rep.WriteText(&text))
	assert.Empty(t, rep.Differences, text.String())
	t.Logf("%d exchanges replayed, %d differences", rep.Exchanges, len(rep.Differences))
}
