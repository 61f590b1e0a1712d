package convo_test

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

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
