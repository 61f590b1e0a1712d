package convo_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// releaseRepo is a repository ready to release 0.2.0, as far as
// scripts/release-check looks: file name → content.
var releaseRepo = map[string]string{
	"client.go": "package convo\n\nconst Version = \"0.2.0\"\n",
	"CHANGELOG.md": "# Changelog\n\n## [Unreleased]\n\n## [0.2.0] - 2026-12-01\n\n### Added\n\n- Things.\n\n" +
		"## [0.1.0] - 2026-11-22\n\n- First.\n\n" +
		"[Unreleased]: https://github.com/convoapi/convo-go/compare/v0.2.0...HEAD\n" +
		"[0.2.0]: https://github.com/convoapi/convo-go/releases/tag/v0.2.0\n",
	"otelconvo/go.mod": "module github.com/convoapi/convo-go/otelconvo\n\ngo 1.25.0\n\nrequire (\n" +
		"\tgithub.com/convoapi/convo-go v0.2.0\n\tgo.opentelemetry.io/otel v1.46.0\n)\n\nreplace github.com/convoapi/convo-go => ../\n",
}

// TestReleaseCheck runs scripts/release-check in a small repository: ready,
// it prints the tag commands, the core's before otelconvo's; each way of not
// being ready fails with exit 1 and a line that names it.
func TestReleaseCheck(t *testing.T) {
	for _, tool := range []string{"git", "bash"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed", tool)
		}
	}
	script, err := os.ReadFile("scripts/release-check")
	require.NoError(t, err)
	tests := []struct {
		name   string
		change map[string]string // committed, unless dirty
		dirty  bool
		tag    string // created before the check
		stderr []string
	}{
		{name: "ready"},
		{
			name:   "convo.Version ahead of the changelog",
			change: map[string]string{"client.go": "package convo\n\nconst Version = \"0.3.0\"\n"},
			stderr: []string{
				"version mismatch: convo.Version (client.go) is 0.3.0, but CHANGELOG.md's latest release is 0.2.0",
				"CHANGELOG.md has no link for [0.3.0]",
				"version mismatch: otelconvo/go.mod requires github.com/convoapi/convo-go v0.2.0, not v0.3.0 (convo.Version)",
			},
		},
		{
			name: "otelconvo requires an older core",
			change: map[string]string{"otelconvo/go.mod": "module github.com/convoapi/convo-go/otelconvo\n\ngo 1.25.0\n\n" +
				"require github.com/convoapi/convo-go v0.1.0\n\nreplace github.com/convoapi/convo-go => ../\n"},
			stderr: []string{"version mismatch: otelconvo/go.mod requires github.com/convoapi/convo-go v0.1.0, not v0.2.0 (convo.Version)"},
		},
		{
			name:   "changes left under Unreleased",
			change: map[string]string{"CHANGELOG.md": strings.Replace(releaseRepo["CHANGELOG.md"], "## [Unreleased]\n", "## [Unreleased]\n\n- More.\n", 1)},
			stderr: []string{"CHANGELOG.md's [Unreleased] still lists changes"},
		},
		{name: "tag exists", tag: "v0.2.0", stderr: []string{"the tag v0.2.0 exists already"}},
		{
			name:   "a change not committed",
			change: map[string]string{"notes.txt": "wip\n"}, dirty: true,
			stderr: []string{"the tree is not clean (commit or remove):\n?? notes.txt"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			files := map[string]string{"scripts/release-check": string(script)}
			for name, content := range releaseRepo {
				files[name] = content
			}
			writeFiles(t, dir, files)
			require.NoError(t, os.Chmod(filepath.Join(dir, "scripts/release-check"), 0o755))
			git(t, dir, "init", "-q")
			git(t, dir, "add", "-A")
			git(t, dir, "commit", "-q", "-m", "release 0.2.0")
			writeFiles(t, dir, tt.change)
			if len(tt.change) > 0 && !tt.dirty {
				git(t, dir, "commit", "-q", "-a", "-m", "change")
			}
			if tt.tag != "" {
				git(t, dir, "tag", tt.tag)
			}

			cmd := exec.Command("bash", filepath.Join(dir, "scripts/release-check"))
			cmd.Dir = t.TempDir() // it finds the repository from its own place
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			err := cmd.Run()
			if len(tt.stderr) == 0 {
				require.NoError(t, err, stderr.String())
				out := stdout.String()
				core, otel := strings.Index(out, "git tag -a v0.2.0 "), strings.Index(out, "git tag -a otelconvo/v0.2.0 ")
				require.True(t, core >= 0 && otel >= 0, "both tag commands:\n%s", out)
				assert.Less(t, core, strings.Index(out, "git push origin v0.2.0\n"))
				assert.Less(t, strings.Index(out, "git push origin v0.2.0\n"), otel, "the core's tag is pushed before otelconvo's is made")
				return
			}
			var exitErr *exec.ExitError
			require.ErrorAs(t, err, &exitErr, "stdout:\n%s", stdout.String())
			assert.Equal(t, 1, exitErr.ExitCode())
			for _, want := range tt.stderr {
				assert.Contains(t, stderr.String(), "release-check: "+want)
			}
			assert.Contains(t, stderr.String(), "release-check: not ready to release")
			assert.NotContains(t, stdout.String(), "git tag", "no tag command when not ready")
		})
	}
}

func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		path := filepath.Join(dir, filepath.FromSlash(name))
		require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
		require.NoError(t, os.WriteFile(path, []byte(content), 0o644))
	}
}

func git(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "user.name=test", "-c", "user.email=test@example.com", "-c", "commit.gpgsign=false", "-c", "tag.gpgsign=false"}, args...)...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "git %s: %s", strings.Join(args, " "), out)
}
