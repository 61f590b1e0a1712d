package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/convoapi/convo-go/conformance"
	"github.com/convoapi/convo-go/fake"
	"github.com/convoapi/convo-go/internal/seedgen"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestConformance runs the conformance suite, anomaly checks included,
// against convofake over HTTP: with its demo data, and with a generated
// seed file of a few thousand records. Every check passes or is skipped
// with a reason.
func TestConformance(t *testing.T) {
	seedFile := filepath.Join(t.TempDir(), "generated.json")
	f, err := os.Create(seedFile)
	require.NoError(t, err)
	require.NoError(t, conformance.WriteSeed(f, seedgen.Generate(3000)))
	require.NoError(t, f.Close())
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
