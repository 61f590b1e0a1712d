package fake_test

import (
	"bytes"
	"fmt"
	"log/slog"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	convo "github.com/convoapi/convo-go"
	"github.com/convoapi/convo-go/fake"
)

// A mounted handler without WithPublicURL names the local address the
// request came in on (a recorder has none: localhost), never the Host.
func TestHandlerMountedURLs(t *testing.T) {
	s, err := fake.NewHandler(fake.WithClock(fake.NewManualClock(t0)))
	require.NoError(t, err)
	assert.Equal(t, "", s.URL())
	co := s.Company()
	acc := co.AddChannel(fake.ChannelAccount{Channel: convo.ChannelChatapp})
	ct := co.AddContact(fake.Contact{ChannelAccountID: acc, PhoneNumber: "5511911112222"})
	cv := co.AddConversation(fake.Conversation{ContactID: ct})
	m := co.AddMessage(cv, fake.Message{Sender: fake.SenderContact, Media: &fake.Media{MimeType: "image/png", Data: []byte("png")}})
	req := httptest.NewRequest("GET", "http://mounted.example:8080/api/v1/attachments/"+s.MediaID(m), nil)
	req.Header.Set("x-api-key", s.APIKey())
	rec := httptest.NewRecorder()
	s.Handler().ServeHTTP(rec, req)
	require.Equal(t, 200, rec.Code, rec.Body.String())
	assert.Contains(t, rec.Body.String(), `"url":"http://localhost/_files/`)
	assert.NotContains(t, rec.Body.String(), "mounted.example")

	s2, err := fake.NewHandler(fake.WithPublicURL("https://fake.example.com/convo/"))
	require.NoError(t, err)
	co2 := s2.Company()
	acc2 := co2.AddChannel(fake.ChannelAccount{Channel: convo.ChannelChatapp})
	ct2 := co2.AddContact(fake.Contact{ChannelAccountID: acc2, PhoneNumber: "5511911112222"})
	m2 := co2.AddMessage(co2.AddConversation(fake.Conversation{ContactID: ct2}), fake.Message{Media: &fake.Media{MimeType: "image/png"}})
	req = httptest.NewRequest("GET", "/v1/attachments/"+s2.MediaID(m2), nil)
	req.Header.Set("x-api-key", s2.APIKey())
	rec = httptest.NewRecorder()
	s2.Handler().ServeHTTP(rec, req)
	assert.Contains(t, rec.Body.String(), `"url":"https://fake.example.com/convo/_files/`)
}

func TestWithLoggerLogsRequests(t *testing.T) {
	var buf bytes.Buffer
	s := newServer(t, fake.WithLogger(slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}))))
	get(t, s, "/channels")
	assert.Contains(t, buf.String(), "path=/v1/channels")
	// A key sent as an id, as sent or percent-escaped, is not logged either.
	key := s.APIKey()
	get(t, s, "/conversations/"+key+"/messages")
	get(t, s, fmt.Sprintf("/conversations/%%%02X%s/messages", key[0], key[1:]))
	assert.Contains(t, buf.String(), "path=/v1/conversations/[REDACTED]/messages")
	assert.NotContains(t, buf.String(), key)
}
