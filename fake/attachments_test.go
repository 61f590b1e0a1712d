package fake_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	convo "github.com/convoapi/convo-go"
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

// The file host answers Range requests (206 with Content-Range, 416 past the
// end), and a CutAfter fault drops the connection part-way through a body.
func TestFileRangesAndCuts(t *testing.T) {
	s := fake.New(t)
	co := s.Company()
	line := co.AddChannel(fake.ChannelAccount{Channel: convo.ChannelChatapp, ProviderIdentifier: "5511940000001"})
	conv := co.AddConversation(fake.Conversation{ContactID: co.AddContact(fake.Contact{ChannelAccountID: line, PhoneNumber: "5511987654321"})})
	msg := co.AddMessage(conv, fake.Message{Sender: fake.SenderContact, Type: convo.MessageDocument,
		Media: &fake.Media{MimeType: "text/plain", Filename: "a.txt", Data: []byte("0123456789")}})
	att, err := s.Client().Attachments.Get(t.Context(), s.MediaID(msg))
	require.NoError(t, err)
	get := func(rng string) (*http.Response, []byte, error) {
		req, _ := http.NewRequestWithContext(t.Context(), http.MethodGet, att.URL, nil)
		if rng != "" {
			req.Header.Set("Range", rng)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return nil, nil, err
		}
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		return resp, body, err
	}
	for _, tt := range []struct {
		rng, body, contentRange string
		status                  int
	}{
		{"", "0123456789", "", http.StatusOK},
		{"bytes=4-", "456789", "bytes 4-9/10", http.StatusPartialContent},
		{"bytes=10-", "", "bytes */10", http.StatusRequestedRangeNotSatisfiable},
	} {
		resp, body, err := get(tt.rng)
		require.NoError(t, err, tt.rng)
		assert.Equal(t, tt.status, resp.StatusCode, tt.rng)
		assert.Equal(t, tt.contentRange, resp.Header.Get("Content-Range"), tt.rng)
		if tt.status != http.StatusRequestedRangeNotSatisfiable {
			assert.Equal(t, tt.body, string(body), tt.rng)
		}
	}
	s.AddFault(fake.Fault{Path: "/_files/*", CutAfter: 3, Times: 1})
	_, body, err := get("")
	require.ErrorIs(t, err, io.ErrUnexpectedEOF)
	assert.Equal(t, "012", string(body))
}

// On a frozen clock a temporary link still expires after its lifetime of
// real time, and the links kept are bounded: past 10,000 the oldest are
// forgotten.
func TestFileLinksExpireOnRealTimeToo(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s, err := fake.NewHandler(fake.WithClock(fake.NewManualClock(time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC))),
			fake.WithRateLimit(0, 0), fake.WithJournalLimit(0))
		require.NoError(t, err)
		co := s.Company()
		line := co.AddChannel(fake.ChannelAccount{Channel: convo.ChannelChatapp, ProviderIdentifier: "5511940000001"})
		conv := co.AddConversation(fake.Conversation{ContactID: co.AddContact(fake.Contact{ChannelAccountID: line, PhoneNumber: "5511987654321"})})
		media := s.MediaID(co.AddMessage(conv, fake.Message{Sender: fake.SenderContact, Type: convo.MessageDocument,
			Media: &fake.Media{MimeType: "text/plain", Filename: "a.txt", Data: []byte("x")}}))
		serve := func(method, target string, key bool) *http.Response {
			req := httptest.NewRequest(method, target, nil)
			if key {
				req.Header.Set("Authorization", "Bearer "+s.APIKey())
			}
			rec := httptest.NewRecorder()
			s.Handler().ServeHTTP(rec, req)
			return rec.Result()
		}
		link := func() string {
			var env struct {
				Data struct {
					URL string `json:"url"`
				} `json:"data"`
			}
			require.NoError(t, json.NewDecoder(serve(http.MethodGet, "/v1/attachments/"+media, true).Body).Decode(&env))
			u, err := url.Parse(env.Data.URL)
			require.NoError(t, err)
			return u.Path
		}
		first := link()
		assert.Equal(t, http.StatusOK, serve(http.MethodGet, first, false).StatusCode)
		time.Sleep(fake.DefaultAttachmentTTL)
		assert.Equal(t, http.StatusForbidden, serve(http.MethodGet, first, false).StatusCode, "expired on real time")

		oldest := link()
		for range 10_000 {
			link()
		}
		assert.Equal(t, http.StatusNotFound, serve(http.MethodGet, oldest, false).StatusCode, "forgotten past 10,000")
		assert.Equal(t, http.StatusOK, serve(http.MethodGet, link(), false).StatusCode)
	})
}
