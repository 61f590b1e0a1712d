package conformancetest

import (
	"testing"

	"github.com/convoapi/convo-go/fake"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestGenerate(t *testing.T) {
	for _, n := range []int{50, 3000} {
		seed := Generate(n)
		ch, ct, cv, msg := Size(seed)
		assert.GreaterOrEqual(t, ch+ct+cv+msg, n)
		assert.Less(t, ch+ct+cv+msg, n+10)
		s := fake.New(t, fake.WithSeed(seed)) // it loads
		assert.Len(t, s.Company().Contacts(), ct)
		require.Equal(t, Generate(n), seed, "deterministic")
	}
}
