package fake

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// mayHoldZeroTime finds what two searches found, in one pass.
func TestMayHoldZeroTime(t *testing.T) {
	for _, doc := range []string{
		``, `{}`, `"000`, `0001-01-01T`, `"0001-01-01T`, `"0000-12-31T`, `"0002-01-01T`, `"000"0001-01-01T`,
		`{"at":"2026-11-22T10:00:00Z","id":"0000f630-ddad-451f-98b6-7452f755ae8a","x":"0000-12-31T23:00:00-01:00"}`,
	} {
		want := strings.Contains(doc, `"0001-01-01T`) || strings.Contains(doc, `"0000-12-31T`)
		assert.Equal(t, want, mayHoldZeroTime([]byte(doc)), doc)
	}
}
