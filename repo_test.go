package convo_test

import (
	"bytes"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
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
