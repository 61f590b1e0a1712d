package conformance

import (
	"strings"
	"testing"
)

// RunTest runs the checks of cfg as subtests of t, one per check named by
// its ID: a failed check fails its subtest with the reason, the request and
// the excerpt of the answer; a skipped one skips with its reason. A run that
// cannot start, or stops early, fails t. It returns the report.
func RunTest(t *testing.T, cfg Config) *Report {
	t.Helper()
	rep, err := Run(t.Context(), cfg)
	if err != nil {
		t.Fatalf("conformance: %v", err)
	}
	for _, res := range rep.Results {
		t.Run(res.ID, func(t *testing.T) {
			switch res.Status {
			case Fail:
				var b strings.Builder
				b.WriteString(res.Title + ": " + res.Reason)
				if res.Request != "" {
					b.WriteString("\nrequest: " + res.Request)
				}
				if res.Excerpt != "" {
					b.WriteString("\nanswer:  " + res.Excerpt)
				}
				t.Error(b.String())
			case Skip:
				t.Skip(res.Reason)
			}
		})
	}
	if rep.Stopped != "" {
		t.Errorf("conformance: the run stopped early: %s", rep.Stopped)
	}
	return rep
}
