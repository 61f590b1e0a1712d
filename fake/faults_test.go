package fake_test

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	convo "github.com/convoapi/convo-go"
	"github.com/convoapi/convo-go/fake"
)

func TestFaultCodesAndDetails(t *testing.T) {
	s := newServer(t)
	tests := []struct {
		fault   fake.Fault
		code    convo.ErrorCode // the code answered: the fault's, else derived from the status
		details string
	}{
		{fake.Fault{Status: 422, Code: convo.CodeChannelMismatch, Message: "Recipient is on another channel.", Details: map[string]any{"expected_channel": "botapp"}}, convo.CodeChannelMismatch, `{"expected_channel":"botapp"}`},
		{fake.Fault{Status: 409, Code: convo.CodeNoOpenConversation, Message: "No open conversation.", Details: map[string]any{"contact_id": "x"}}, convo.CodeNoOpenConversation, `{"contact_id":"x"}`},
		{fake.Fault{Status: 422, Code: convo.CodeRecipientNotOnChannel, Message: "Not on channel.", Details: map[string]any{"channel": "chatapp"}}, convo.CodeRecipientNotOnChannel, `{"channel":"chatapp"}`},
		{fake.Fault{Status: 422, Code: convo.CodeUnsupportedCapability, Message: "Unsupported.", Details: map[string]any{"capability": "video"}}, convo.CodeUnsupportedCapability, `{"capability":"video"}`},
		{fake.Fault{Status: 503}, "SERVICE_UNAVAILABLE", ""},
		{fake.Fault{Status: 400}, convo.CodeInvalidParam, ""},
		{fake.Fault{Status: 401, Path: "/channels"}, convo.CodeUnauthorized, ""},
		{fake.Fault{Status: 404}, "NOT_FOUND", ""},
		{fake.Fault{Status: 429}, convo.CodeRateLimited, ""},
		{fake.Fault{Status: 599}, "INTERNAL_ERROR", ""},
	}
	for _, tc := range tests {
		t.Run(string(tc.code), func(t *testing.T) {
			// By default a path no operation has: the answers of the
			// service's own paths are held to api/openapi.yaml.
			if tc.fault.Path == "" {
				tc.fault.Path = "/faulty"
			}
			tc.fault.Method, tc.fault.Times = "GET", 1
			s.AddFault(tc.fault)
			r := get(t, s, tc.fault.Path)
			assertError(t, r, tc.fault.Status, tc.code, tc.fault.Message, "/api/v1"+tc.fault.Path, "GET", tc.details)
			// Times: 1, so the rule is gone.
			assert.Empty(t, s.Faults())
		})
	}
}

func TestFaultMatchingTimesAndRetryAfter(t *testing.T) {
	s := newServer(t)
	id := s.AddFault(fake.Fault{Path: "/channels", Status: 429, RetryAfter: 1500 * time.Millisecond, Times: 2})
	for i := 0; i < 2; i++ {
		r := call(t, s, "GET", "/api/v1/channels", nil) // both prefixes match
		assertError(t, r, 429, "RATE_LIMITED", "", "/api/v1/channels", "GET", "")
		assert.Equal(t, "2", r.Header.Get("Retry-After"))
	}
	assert.Equal(t, 200, get(t, s, "/channels").Status)
	s.RemoveFault(id)

	// Method filter, "always", path glob, removal.
	id = s.AddFault(fake.Fault{Method: "POST", Path: "/v1/chatapp/*", Status: 500})
	assert.Equal(t, 200, get(t, s, "/channels").Status)
	assert.Equal(t, 405, get(t, s, "/chatapp/contacts").Status)
	for i := 0; i < 3; i++ {
		assert.Equal(t, 500, call(t, s, "POST", "/v1/chatapp/contacts", map[string]string{}).Status)
	}
	s.RemoveFault(id)
	assert.Equal(t, 400, call(t, s, "POST", "/v1/chatapp/contacts", map[string]string{}).Status)
	s.AddFault(fake.Fault{Status: 502})
	assert.Equal(t, 502, get(t, s, "/anything").Status)
	s.ClearFaults()
	assert.Equal(t, 200, get(t, s, "/channels").Status)
}

func TestFaultOnAttachmentFiles(t *testing.T) {
	s, b := newBasic(t)
	m := b.co.AddMessage(b.co.AddConversation(fake.Conversation{ContactID: b.ana}), fake.Message{Media: &fake.Media{MimeType: "image/png"}})
	r := get(t, s, "/attachments/"+s.MediaID(m))
	require.Equal(t, 200, r.Status)
	var data struct {
		URL string `json:"url"`
	}
	require.NoError(t, json.Unmarshal([]byte(r.Data(t, 200)), &data))
	s.AddFault(fake.Fault{Path: "/_files/*", Status: 503, RetryAfter: 3 * time.Second, Times: 1})
	r = call(t, s, "GET", data.URL, nil, header{})
	assert.Equal(t, 503, r.Status)
	assert.Equal(t, "3", r.Header.Get("Retry-After"))
	assert.Equal(t, 200, call(t, s, "GET", data.URL, nil, header{}).Status)
}

// Server.RemoveFault reports whether the rule existed; Server.Faults lists
// rules with their remaining uses.
func TestFaultListing(t *testing.T) {
	s := newServer(t)
	a := s.AddFault(fake.Fault{Path: "/v1/channels", Status: 503, Times: 2})
	bID := s.AddFault(fake.Fault{Method: "POST", Status: 500})
	fs := s.Faults()
	require.Len(t, fs, 2)
	assert.Equal(t, a, fs[0].ID)
	assert.Equal(t, "/channels", fs[0].Fault.Path)
	assert.Equal(t, 2, fs[0].Remaining)
	assert.Equal(t, 0, fs[1].Remaining)
	get(t, s, "/channels")
	assert.Equal(t, 1, s.Faults()[0].Remaining)
	get(t, s, "/channels")
	assert.Len(t, s.Faults(), 1, "a used-up rule is gone")
	assert.False(t, s.RemoveFault(a))
	assert.True(t, s.RemoveFault(bID))
	assert.False(t, s.RemoveFault(bID))
	assert.False(t, s.RemoveFault(12345))
	assert.Empty(t, s.Faults())
}

// A drop rule closes the connection without an answer and is journaled with
// status 0. In a synctest bubble: the dropped request's handler journals
// after closing, and has finished once the bubble is idle.
func TestFaultDropConnection(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newServer(t, fake.WithInMemoryNetwork())
		s.AddFault(fake.Fault{Path: "/channels", Drop: true, Times: 1})
		req, _ := http.NewRequest("GET", s.URL()+"/channels", nil)
		req.Header.Set("x-api-key", s.APIKey())
		_, err := s.HTTPClient().Do(req)
		require.Error(t, err)
		synctest.Wait()
		res, err := s.HTTPClient().Do(req)
		require.NoError(t, err)
		res.Body.Close()
		assert.Equal(t, 200, res.StatusCode)
		var statuses []int
		for _, r := range s.Requests() {
			statuses = append(statuses, r.Status)
		}
		assert.Equal(t, []int{0, 200}, statuses)
	})
}

// A latency rule waits (on the clock of time, here a synctest bubble's:
// no real wait), then serves; the wait ends with the client's context.
func TestFaultLatencyHonorsContext(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newServer(t, fake.WithInMemoryNetwork())
		s.AddFault(fake.Fault{Path: "/channels", Latency: 50 * time.Millisecond, Times: 1})
		req, _ := http.NewRequest("GET", s.URL()+"/channels", nil)
		req.Header.Set("x-api-key", s.APIKey())
		start := time.Now()
		res, err := s.HTTPClient().Do(req)
		require.NoError(t, err)
		res.Body.Close()
		assert.Equal(t, 200, res.StatusCode, "latency only, then served")
		assert.Equal(t, 50*time.Millisecond, time.Since(start))

		s.AddFault(fake.Fault{Path: "/channels", Latency: time.Hour, Status: 500})
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
		defer cancel()
		_, err = s.HTTPClient().Do(req.WithContext(ctx))
		require.ErrorIs(t, err, context.DeadlineExceeded)
		s.ClearFaults() // the server returns once the client's connection went away; Close does not hang
	})
}
