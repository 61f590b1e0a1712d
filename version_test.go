package convo_test

import (
	"fmt"
	"os"
	"regexp"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	convo "github.com/convoapi/convo-go"
)

// releaseHeading matches a released version's heading in CHANGELOG.md, as
// Keep a Changelog writes it: "## [1.2.3] - 2026-11-22". [Unreleased] has no
// date and does not match.
var releaseHeading = regexp.MustCompile(`(?m)^## \[(\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?)\] - \d{4}-\d{2}-\d{2}$`)

// TestVersionMatchesChangelog holds convo.Version (sent in every User-Agent)
// and the latest release in CHANGELOG.md in step: a release changes both in
// the same commit.
func TestVersionMatchesChangelog(t *testing.T) {
	log, err := os.ReadFile("CHANGELOG.md")
	require.NoError(t, err)
	require.Contains(t, string(log), "## [Unreleased]", "the changelog keeps an [Unreleased] section for the next release")

	m := releaseHeading.FindSubmatch(log)
	require.NotNil(t, m, "CHANGELOG.md has no released version heading like \"## [0.1.0] - 2026-11-22\"")
	require.Equal(t, string(m[1]), convo.Version,
		"convo.Version and the latest release in CHANGELOG.md disagree; release both in one commit")
}

// TestCompatibilityNamesGoVersions keeps the README's promise in step with
// go.mod: the oldest supported Go release is the go directive, and the
// compatibility section names it and the release after it.
func TestCompatibilityNamesGoVersions(t *testing.T) {
	mod, err := os.ReadFile("go.mod")
	require.NoError(t, err)
	m := regexp.MustCompile(`(?m)^go (1)\.(\d+)`).FindSubmatch(mod)
	require.NotNil(t, m, "go.mod has a go directive")
	minor, err := strconv.Atoi(string(m[2]))
	require.NoError(t, err)
	oldest := fmt.Sprintf("Go 1.%d", minor)
	newest := fmt.Sprintf("Go 1.%d", minor+1)

	readme, err := os.ReadFile("README.md")
	require.NoError(t, err)
	section := regexp.MustCompile(`(?s)## Compatibility and versioning\n(.*?)\n## `).FindSubmatch(readme)
	require.NotNil(t, section, "README.md has a \"Compatibility and versioning\" section")
	assert.Contains(t, string(section[1]), oldest+" and "+newest, "the supported Go releases")
	assert.Contains(t, string(section[1]), "CHANGELOG.md")
}
