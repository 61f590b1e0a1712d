package convo_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestProxyCheckRefusesAnotherRequirement runs .ci/proxy-check where
// otelconvo requires the core at another version than convo.Version: it
// stops before publishing anything, with a message that names both. (.ci/run
// runs the whole check on the repository.)
func TestProxyCheckRefusesAnotherRequirement(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("bash is not installed")
	}
	script, err := os.ReadFile(".ci/proxy-check")
	require.NoError(t, err)
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		".ci/proxy-check": string(script),
		"client.go":       "package convo\n\nconst Version = \"0.2.0\"\n",
		"otelconvo/go.mod": "module github.com/convoapi/convo-go/otelconvo\n\ngo 1.25.0\n\n" +
			"require github.com/convoapi/convo-go v0.1.0\n\nreplace github.com/convoapi/convo-go => ../\n",
	})
	cmd := exec.Command("bash", filepath.Join(dir, ".ci/proxy-check"))
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err = cmd.Run()
	var exitErr *exec.ExitError
	require.ErrorAs(t, err, &exitErr, "stdout:\n%s", stdout.String())
	assert.Equal(t, 1, exitErr.ExitCode())
	assert.Contains(t, stderr.String(), "proxy-check: otelconvo/go.mod requires github.com/convoapi/convo-go v0.1.0, "+
		"but the version being released is v0.2.0 (convo.Version in client.go)")
	assert.Empty(t, stdout.String(), "nothing published")
}
