package fake_test

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/convoapi/convo-go/fake"
)

func TestAttachmentExchangeAndDownload(t *testing.T) {
	clock := fake.NewManualClock(t0)
	s, b := newBasic(t, fake.WithClock(clock), fake.WithAttachmentTTL(10*time.Minute))
	conv := b.co.AddConversation(fake.Conversation{ContactID: b.ana})
	m := b.co.AddMessage(conv, fake.Message{Sender: fake.SenderContact, Media: &fake.Media{MimeType: "application/pdf", Filename: "invoice.pdf", Data: []byte("%PDF-1.7 fake")}})
	mediaID := s.MediaID(m)

	r := get(t, s, "/attachments/"+mediaID)
	var data struct {
		URL string `json:"url"`
	}
	raw := r.Data(t, 200)
	require.NoError(t, json.Unmarshal([]byte(raw), &data))
	base := strings.TrimSuffix(s.URL(), "/v1")
	require.True(t, strings.HasPrefix(data.URL, base+"/_files/"), data.URL)
	assert.JSONEq(t, `{"media_id":"`+mediaID+`","url":"`+data.URL+`","expires_at":"2026-11-22T10:10:00.000Z",
	  "mime_type":"application/pdf","file_size":13,"filename":"invoice.pdf"}`, raw)

	// The URL needs no key.
	res, err := http.Get(data.URL)
	require.NoError(t, err)
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	assert.Equal(t, 200, res.StatusCode)
	assert.Equal(t, "%PDF-1.7 fake", string(body))
	assert.Equal(t, "application/pdf", res.Header.Get("Content-Type"))
	assert.Equal(t, `attachment; filename=invoice.pdf`, res.Header.Get("Content-Disposition"))

	// It expires on the fake clock: 403 URL_EXPIRED.
	clock.Advance(10 * time.Minute)
	r = call(t, s, "GET", data.URL, nil, header{})
	path := strings.TrimPrefix(data.URL, base)
	assertError(t, r, 403, "URL_EXPIRED", "", path, "GET", "")
	// An unknown token: 404.
	r = call(t, s, "GET", base+"/_files/nope", nil, header{})
	assertError(t, r, 404, "NOT_FOUND", "File not found.", "/_files/nope", "GET", "")
}

// The attachment URL's host is the server's own, never the request's Host
// header: a client naming another host must not steer the download there.
func TestAttachmentHostIsNeverTheHostHeader(t *testing.T) {
	s, b := newBasic(t)
	conv := b.co.AddConversation(fake.Conversation{ContactID: b.ana})
	m := b.co.AddMessage(conv, fake.Message{Media: &fake.Media{MimeType: "image/png", Data: []byte("png")}})
	raw := "GET /v1/attachments/" + s.MediaID(m) + " HTTP/1.1\r\nHost: evil.example\r\nX-Api-Key: " + s.APIKey() + "\r\nConnection: close\r\n\r\n"
	got := rawExchange(t, s, raw, false)
	assert.Contains(t, got, `"url":"`+strings.TrimSuffix(s.URL(), "/v1")+"/_files/")
	assert.NotContains(t, got, "evil.example")

}
