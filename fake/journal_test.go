package fake_test

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/convoapi/convo-go/fake"
)

func TestJournalRecordsAndRedacts(t *testing.T) {
	s := newServer(t)
	get(t, s, "/channels?x=1", header{"Authorization", "Bearer " + s.APIKey()})
	get(t, s, "/channels", header{"x-api-key", s.APIKey()})
	call(t, s, "POST", "/api/v1/chatapp/sequences/cancel", map[string]string{"phone_number": "5511987654321"}, header{"Authorization", "ApiKey " + s.APIKey()})
	reqs := s.Requests()
	require.Len(t, reqs, 3)
	assert.Equal(t, "GET", reqs[0].Method)
	assert.Equal(t, "/v1/channels", reqs[0].Path)
	assert.Equal(t, "1", reqs[0].Query.Get("x"))
	assert.Equal(t, "Bearer [REDACTED]", reqs[0].Header.Get("Authorization"))
	assert.Equal(t, http.StatusOK, reqs[0].Status)
	assert.Equal(t, t0, reqs[0].Time)
	assert.Equal(t, "[REDACTED]", reqs[1].Header.Get("X-Api-Key"))
	assert.Equal(t, "ApiKey [REDACTED]", reqs[2].Header.Get("Authorization"))
	assert.JSONEq(t, `{"phone_number":"5511987654321"}`, string(reqs[2].Body))
	assert.Equal(t, 404, reqs[2].Status)
	for _, r := range reqs {
		for _, vs := range r.Header {
			for _, v := range vs {
				assert.NotContains(t, v, s.APIKey())
			}
		}
	}
	s.ClearRequests()
	assert.Empty(t, s.Requests())
}

func TestJournalLimit(t *testing.T) {
	s := newServer(t, fake.WithJournalLimit(3))
	for _, p := range []string{"/a", "/b", "/c", "/d", "/e"} {
		get(t, s, p)
	}
	var paths []string
	for _, r := range s.Requests() {
		paths = append(paths, r.Path)
	}
	assert.Equal(t, []string{"/v1/c", "/v1/d", "/v1/e"}, paths)
}
