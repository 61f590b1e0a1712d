package main

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestKeyLikeName(t *testing.T) {
	for _, name := range []string{
		"api_key", "apiKey", "API-KEY", "X-Api-Key", "key", "token", "access_token", "refreshToken",
		"authorization", "Proxy-Authorization", "password", "db_password", "passwd", "secret",
		"client_secret", "private_key", "Cookie", "Set-Cookie", "auth", "credentials",
	} {
		assert.True(t, keyLikeName(name), name)
	}
	for _, name := range []string{
		"phone_number", "phone_number_id", "custom_fields", "keyboard", "monkey", "name", "tokens_used",
		"Content-Type", "text", "author",
	} {
		assert.False(t, keyLikeName(name), name)
	}
}

// Bodies in the admin journal: key-like fields at any depth are redacted;
// the order of fields and everything else stay.
func TestBodyJSONRedacts(t *testing.T) {
	for _, tc := range []struct {
		name, in, want string
	}{
		{"empty", ``, `null`},
		{"plain", `{"b":1,"a":"x"}`, `{"b":1,"a":"x"}`},
		{"top level", `{"api_key":"k","text":"hi"}`, `{"api_key":"[REDACTED]","text":"hi"}`},
		{"any depth", `{"a":[{"b":{"Token":"t","keep":2}}],"password":{"x":[1,2]}}`,
			`{"a":[{"b":{"Token":"[REDACTED]","keep":2}}],"password":"[REDACTED]"}`},
		{"null stays null", `{"secret":null}`, `{"secret":null}`},
		{"numbers and bools", `{"n":1.50,"t":true,"f":false,"z":null,"apiKey":12345}`,
			`{"n":1.50,"t":true,"f":false,"z":null,"apiKey":"[REDACTED]"}`},
		{"array at the top", `[{"key":"k"},"v"]`, `[{"key":"[REDACTED]"},"v"]`},
		{"not JSON", `api_key=[REDACTED]&x=1`, ``},
		{"no HTML escaping", `{"text":"<b>&</b>"}`, `{"text":"<b>&</b>"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := bodyJSON([]byte(tc.in))
			if tc.name == "not JSON" {
				var s string
				require.NoError(t, json.Unmarshal(got, &s))
				assert.Equal(t, tc.in, s)
				return
			}
			assert.Equal(t, tc.want, string(got))
		})
	}
}

func TestRedactValues(t *testing.T) {
	got := redactValues(map[string][]string{
		"Authorization": {"Bearer [REDACTED]", "Basic dXNlcjpwdw=="},
		"X-Auth-Token":  {"abc"},
		"Cookie":        {"session=1"},
		"Accept":        {"application/json"},
	})
	assert.Equal(t, map[string][]string{
		"Authorization": {"Bearer [REDACTED]", "Basic [REDACTED]"},
		"X-Auth-Token":  {"[REDACTED]"},
		"Cookie":        {"[REDACTED]"},
		"Accept":        {"application/json"},
	}, got)
}
