package fake_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/convoapi/convo-go/fake"
)

// The fake never prints a key: an error about a key names the company.
func TestErrorsNameTheCompanyNotTheKey(t *testing.T) {
	const secret = "sk-very-secret-key-123"
	s := newServer(t, fake.WithAPIKey(secret))

	msg := func() (msg string) {
		defer func() { msg = fmt.Sprint(recover()) }()
		s.AddCompany(secret)
		return ""
	}()
	assert.NotContains(t, msg, secret)
	assert.Contains(t, msg, s.Company().ID())

	err := s.Load(&fake.Seed{Companies: []fake.CompanySeed{{APIKey: "other-secret-key"}, {APIKey: "other-secret-key"}}})
	require.Error(t, err)
	assert.NotContains(t, err.Error(), "other-secret-key")
	assert.Contains(t, err.Error(), "companies[1].api_key")
}
