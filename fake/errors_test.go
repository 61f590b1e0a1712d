package fake_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestErrorIDsAreUniqueAndWellFormed(t *testing.T) {
	s := newServer(t)
	seen := map[string]bool{}
	for i := 0; i < 300; i++ {
		r := get(t, s, "/channels", bearer("bad"))
		var body struct {
			ErrorID   string `json:"errorId"`
			Timestamp string `json:"timestamp"`
		}
		require.NoError(t, json.Unmarshal(r.Body, &body))
		assert.Regexp(t, errorIDPattern, body.ErrorID)
		assert.False(t, seen[body.ErrorID], "duplicate %s", body.ErrorID)
		seen[body.ErrorID] = true
		assert.Equal(t, ts0, body.Timestamp) // on the fake clock
	}
}

func TestSuccessEnvelopeExact(t *testing.T) {
	s := newServer(t)
	r := get(t, s, "/channels")
	assert.JSONEq(t, `{"success":true,"data":{"items":[]},"timestamp":"`+ts0+`"}`, string(r.Body))
	assert.Equal(t, "application/json; charset=utf-8", r.Header.Get("Content-Type"))
}
