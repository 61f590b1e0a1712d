package conformance_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/convoapi/convo-go/conformance"
	"github.com/convoapi/convo-go/fake"
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
