package convo_test

// Meta-tests of the repository: what it tracks, its licence, its version and
// the Go releases it promises.

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	convo "github.com/convoapi/convo-go"
)

// maxTrackedFile is the size past which a tracked file is refused: anyone
// fetching the module downloads every tracked byte.
const maxTrackedFile = 1 << 20

// binaryMagic are the leading bytes of executables and object archives,
// which a build leaves behind and a careless `git add .` commits.
var binaryMagic = []struct{ kind, magic string }{
	{"ELF executable", "\x7fELF"},
	{"Mach-O executable", "\xfe\xed\xfa\xce"},
	{"Mach-O executable", "\xfe\xed\xfa\xcf"},
	{"Mach-O executable", "\xce\xfa\xed\xfe"},
	{"Mach-O executable", "\xcf\xfa\xed\xfe"},
	{"Mach-O universal binary", "\xca\xfe\xba\xbe"},
	{"PE executable", "MZ"},
	{"ar archive", "!<arch>\n"},
}

// binaryKind names the kind of executable or archive head starts with, or
// returns "".
func binaryKind(head []byte) string {
	for _, m := range binaryMagic {
		if bytes.HasPrefix(head, []byte(m.magic)) {
			return m.kind
		}
	}
	return ""
}

func TestBinaryKind(t *testing.T) {
	for _, tc := range []struct {
		head, want string
	}{
		{"\x7fELF\x02\x01\x01", "ELF executable"},
		{"\xcf\xfa\xed\xfe\x07\x00", "Mach-O executable"},
		{"MZ\x90\x00", "PE executable"},
		{"!<arch>\n__.PKGDEF", "ar archive"},
		{"package convo\n", ""},
		{"#!/usr/bin/env bash\n", ""},
		{"", ""},
	} {
		assert.Equal(t, tc.want, binaryKind([]byte(tc.head)), "%q", tc.head)
	}
}

// TestNoTrackedBinaryOrLargeFile keeps build output and large files out of
// the repository (and so out of every module download): no tracked file may
// be an executable or an archive, or be over 1 MiB.
func TestNoTrackedBinaryOrLargeFile(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed: cannot list the tracked files")
	}
	out, err := exec.Command("git", "ls-files", "-z").Output()
	if err != nil {
		t.Skipf("not a git checkout (a module download has no .git): git ls-files: %v", err)
	}
	files := strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00")
	require.NotEmpty(t, files)
	for _, name := range files {
		info, err := os.Lstat(name)
		if err != nil || !info.Mode().IsRegular() {
			continue // deleted in the work tree, or a symlink
		}
		assert.LessOrEqual(t, info.Size(), int64(maxTrackedFile), "%s: a tracked file over 1 MiB", name)
		b, err := os.ReadFile(name)
		require.NoError(t, err)
		if kind := binaryKind(b); kind != "" {
			t.Errorf("%s: a tracked %s; delete it with git rm and ignore it in .gitignore", name, kind)
		}
	}
}

// apache2SHA256 is the SHA-256 of the Apache License 2.0 as the Apache
// Software Foundation publishes it (https://www.apache.org/licenses/LICENSE-2.0.txt,
// also Debian's /usr/share/common-licenses/Apache-2.0).
const apache2SHA256 = "cfc7749b96f63bd31c3c42b5c471bf756814053e847c10f3eb003417bc523d30"

// appendixCopyright is the appendix's placeholder line, the only line of the
// licence that is ours to fill in.
const appendixCopyright = "   Copyright [yyyy] [name of copyright owner]"

// TestLicenseIsApache2Unaltered holds LICENSE to the standard text, byte for
// byte, except the appendix's copyright line.
func TestLicenseIsApache2Unaltered(t *testing.T) {
	b, err := os.ReadFile("LICENSE")
	require.NoError(t, err)
	lines := strings.Split(string(b), "\n")
	filled := 0
	for i, l := range lines {
		if strings.HasPrefix(l, "   Copyright ") && strings.Contains(l, "convo-go") {
			lines[i] = appendixCopyright
			filled++
		}
	}
	require.Equal(t, 1, filled, "LICENSE fills in the appendix's copyright line once")
	sum := sha256.Sum256([]byte(strings.Join(lines, "\n")))
	require.Equal(t, apache2SHA256, hex.EncodeToString(sum[:]), "LICENSE differs from the Apache License 2.0 text")
}

// releaseHeading matches a released version's heading in CHANGELOG.md, as
// Keep a Changelog writes it: "## [1.2.3] - 2026-11-22". [Unreleased] has no
// date and does not match.
var releaseHeading = regexp.MustCompile(`(?m)^## \[(\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?)\] - \d{4}-\d{2}-\d{2}$`)

// comingVersion matches the first line of [Unreleased] before the first
// release: "The first release, 0.1.0, is not tagged yet: …".
var comingVersion = regexp.MustCompile(`(?m)^The first release, (\d+\.\d+\.\d+), is not tagged yet`)

// TestVersionMatchesChangelog holds convo.Version (sent in every User-Agent)
// and CHANGELOG.md in step: it is the latest release, or before the first
// one the coming version that [Unreleased] names. A release changes both in
// the same commit.
func TestVersionMatchesChangelog(t *testing.T) {
	log, err := os.ReadFile("CHANGELOG.md")
	require.NoError(t, err)
	require.Contains(t, string(log), "## [Unreleased]", "the changelog keeps an [Unreleased] section for the next release")

	if m := releaseHeading.FindSubmatch(log); m != nil {
		require.Equal(t, string(m[1]), convo.Version,
			"convo.Version and the latest release in CHANGELOG.md disagree; release both in one commit")
		assert.NotRegexp(t, comingVersion, string(log), "a released changelog still says the first release is not tagged")
		return
	}
	m := comingVersion.FindSubmatch(log)
	require.NotNil(t, m, "CHANGELOG.md has no release heading like \"## [0.1.0] - 2026-11-22\", nor a first line of [Unreleased] naming the coming version")
	require.Equal(t, string(m[1]), convo.Version, "convo.Version is not the coming version CHANGELOG.md's [Unreleased] names")
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
