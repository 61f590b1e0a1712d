package conformance

import (
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// allChecks is every check of a run that writes and runs the full anomaly
// checks.
func allChecks() []*check {
	r := newRunner(Config{BaseURL: "http://127.0.0.1/v1", APIKey: "k", Anomalies: true, Write: &WriteTargets{PhoneNumberID: "1", PhoneNumber: "2"}})
	return r.plan()
}

// TestEverySpecCheckQuotesTheSpecification: a "spec" check names the
// sentence (or table row) of the service's interface specification that it
// enforces, found word for word in testdata/interface-spec.md (a copy of
// the specification, version 3.0.0); the SDK's checks are a group of their
// own; every check has a basis, a title and a unique id.
func TestEverySpecCheckQuotesTheSpecification(t *testing.T) {
	b, err := os.ReadFile("testdata/interface-spec.md")
	require.NoError(t, err)
	spec := strings.Join(strings.Fields(string(b)), " ")
	seen := map[string]bool{}
	counts := map[Basis]int{}
	for _, c := range allChecks() {
		assert.False(t, seen[c.id], "%s: two checks with this id", c.id)
		seen[c.id] = true
		assert.NotEmpty(t, c.title, c.id)
		counts[c.basis]++
		switch c.basis {
		case BasisSpec:
			if assert.NotEmpty(t, c.spec, "%s: a spec check without the sentence it enforces", c.id) {
				assert.Contains(t, spec, strings.Join(strings.Fields(c.spec), " "), "%s: its sentence is not in the specification", c.id)
			}
		case BasisDecision:
			assert.Empty(t, c.spec, "%s: a decision check quotes the specification as if it stated the rule", c.id)
		case BasisSDK:
			assert.True(t, strings.HasPrefix(c.id, "sdk/"), "%s: an SDK check outside the sdk group", c.id)
		default:
			t.Errorf("%s: basis %q", c.id, c.basis)
		}
		if strings.HasPrefix(c.id, "sdk/") {
			assert.Equal(t, BasisSDK, c.basis, c.id)
		}
	}
	t.Logf("checks by basis: %v", counts)
}
