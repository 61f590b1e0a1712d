package conformance_test

import (
	"testing"

	"github.com/convoapi/convo-go/conformance"
	"github.com/convoapi/convo-go/internal/conformancetest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRunHasTeeth alters one thing at a time in the fake's answers or
// acceptance, through a proxy, and checks that the suite reports each.
func TestRunHasTeeth(t *testing.T) {
	require.GreaterOrEqual(t, len(conformancetest.Alterations), 20)
	caught := 0
	for _, alt := range conformancetest.Alterations {
		t.Run(alt.Name, func(t *testing.T) {
			s := demoHandler(t)
			ts := conformancetest.Proxy(t, s.Handler(), alt)
			rep, err := conformance.Run(t.Context(), conformance.Config{BaseURL: ts.URL + "/v1", APIKey: s.APIKey(), Anomalies: true, Pace: -1})
			require.NoError(t, err)
			if alt.Want == "stopped" {
				if assert.NotEmpty(t, rep.Stopped) && assert.Equal(t, 2, rep.ExitCode()) {
					caught++
				}
				return
			}
			res, ok := rep.Result(alt.Want)
			require.True(t, ok, "no check %s", alt.Want)
			if assert.Equal(t, conformance.Fail, res.Status, "%s: %s", alt.Want, res.Reason) {
				caught++
				assert.Equal(t, 1, rep.ExitCode())
				t.Logf("%s: %s", alt.Want, res.Reason)
			}
		})
	}
	t.Logf("score: %d of %d alterations reported", caught, len(conformancetest.Alterations))
}

// TestRunThroughAFaithfulProxy is the control of TestRunHasTeeth: the same
// proxy, altering nothing, lets every check pass or skip.
func TestRunThroughAFaithfulProxy(t *testing.T) {
	s := demoHandler(t)
	ts := conformancetest.Proxy(t, s.Handler(), conformancetest.Alteration{})
	rep, err := conformance.Run(t.Context(), conformance.Config{BaseURL: ts.URL + "/v1", APIKey: s.APIKey(), Anomalies: true, Pace: -1})
	require.NoError(t, err)
	assert.Zero(t, rep.Failed, "%+v", rep.Results)
	assert.Equal(t, 0, rep.ExitCode())
}
