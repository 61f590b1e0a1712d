package conformance_test

import (
	"context"
	"testing"

	"github.com/convoapi/convo-go/conformance"
	"github.com/convoapi/convo-go/fake"
	"github.com/convoapi/convo-go/internal/conformancetest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// teethConfig is the run of the teeth tests: every check, writes and the
// rate-limit check included, against s behind the proxy at base.
func teethConfig(s *fake.Server, base string) conformance.Config {
	return conformance.Config{BaseURL: base + "/v1", APIKey: s.APIKey(), Anomalies: true, Pace: -1, MaxRequests: 2000,
		Write:          &conformance.WriteTargets{PhoneNumberID: "5511940000001", PhoneNumber: "5511900001111"},
		SpendRateLimit: true,
		CustomFields: func(_ context.Context, id string) (map[string]string, error) {
			ct, _ := s.Contact(id)
			return ct.CustomFields, nil
		}}
}

// teethServer is the demo data with a request limit that a run reaches
// and that does not refill during it (one request every 1,000 s).
func teethServer(t *testing.T) *fake.Server {
	return demoHandler(t, fake.WithRateLimit(0.001, 600))
}

// TestRunHasTeeth alters one thing at a time in the fake's answers or
// acceptance, through a proxy, and checks that the suite reports each.
func TestRunHasTeeth(t *testing.T) {
	require.GreaterOrEqual(t, len(conformancetest.Alterations), 50)
	caught := 0
	for _, alt := range conformancetest.Alterations {
		t.Run(alt.Name, func(t *testing.T) {
			s := teethServer(t)
			ts := conformancetest.Proxy(t, s.Handler(), alt)
			rep, err := conformance.Run(t.Context(), teethConfig(s, ts.URL))
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
	s := teethServer(t)
	ts := conformancetest.Proxy(t, s.Handler(), conformancetest.Alteration{})
	rep, err := conformance.Run(t.Context(), teethConfig(s, ts.URL))
	require.NoError(t, err)
	assert.Zero(t, rep.Failed, "%+v", rep.Results)
	for _, id := range []string{"write/custom-fields-merged", "auth/forms-count-alike", "anomalies/bucket-meaning", "anomalies/item-cap"} {
		res, _ := rep.Result(id)
		assert.Equal(t, conformance.Pass, res.Status, "%s: %s", id, res.Reason)
	}
	t.Log(rep.Summary())
	assert.Equal(t, 0, rep.ExitCode())
}
