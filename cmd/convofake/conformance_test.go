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
			rep, err := conformance.Run(t.Context(), conformance.Config{BaseURL: proxy.URL + "/v1", APIKey: fake.DefaultAPIKey, Anomalies: true, Pace: -1})
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
