package convo_test

import (
	"os/exec"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestPackageDocCoversTheBasics holds the package overviews to the topics a
// new user looks for first, as `go doc` shows them.
func TestPackageDocCoversTheBasics(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("go tool not found")
	}
	tests := []struct {
		pkg      string
		headings []string
	}{
		{".", []string{"Authentication", "Retries and rate limits", "Pagination", "Errors", "Media", "Testing with fake", "Examples"}},
		{"./fake", []string{"Starting a server", "Seeding", "Time", "Faults and the journal"}},
	}
	for _, tt := range tests {
		t.Run(tt.pkg, func(t *testing.T) {
			out, err := exec.Command(goTool, "doc", tt.pkg).CombinedOutput()
			require.NoError(t, err, string(out))
			for _, h := range tt.headings {
				assert.Contains(t, string(out), "\n# "+h+"\n", "the package overview has a %q section", h)
			}
		})
	}
}
