package convo_test

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	convo "github.com/convoapi/convo-go"
	"github.com/convoapi/convo-go/fake"
	"github.com/convoapi/convo-go/internal/testkit"
)

// One page of listMessages with every shape: a text with a reaction, an
// available image, media of unknown and no_reference status, a system message
// (text/media/raw null), an unknown type and status, raw present as an object,
// raw absent.
const messagesResp = `{"items":[
 {"message_id":"m-7","direction":"outbound","type":"text","status":"read","text":"Olá! Como posso ajudar?","media":null,
  "reactions":[{"emoji":"❤️","direction":"inbound","reacted_at":"2026-11-22T09:10:00.000Z"}],
  "sent_at":"2026-11-22T09:05:00.000Z","delivered_at":"2026-11-22T09:05:01.500Z","read_at":"2026-11-22T09:06:00.000Z","failure_reason":null,
  "raw":{"kind":"text","body":"Olá! Como posso ajudar?"}},
 {"message_id":"m-6","direction":"inbound","type":"image","status":null,"text":"my receipt",
  "media":{"media_id":"med-6","media_status":"available","mime_type":"image/jpeg","file_size":48213,"filename":"receipt.jpg"},
  "reactions":[],"sent_at":"2026-11-22T09:03:00.000Z","delivered_at":null,"read_at":null,"failure_reason":null,"raw":null},
 {"message_id":"m-5","direction":"inbound","type":"audio","status":null,"text":null,
  "media":{"media_id":null,"media_status":"unknown","mime_type":null,"file_size":null,"filename":null},
  "reactions":[],"sent_at":"2025-01-01T00:00:00.000Z","delivered_at":null,"read_at":null,"failure_reason":null,"raw":null},
 {"message_id":"m-4","direction":"inbound","type":"document","status":null,"text":null,
  "media":{"media_id":null,"media_status":"no_reference","mime_type":"application/pdf","file_size":null,"filename":"contract.pdf"},
  "reactions":[],"sent_at":"2025-01-01T00:00:00.000Z","delivered_at":null,"read_at":null,"failure_reason":null,"raw":null},
 {"message_id":"m-3","direction":"outbound","type":"system","status":null,"text":null,"media":null,"reactions":[],
  "sent_at":"2026-11-21T00:00:00.000Z","delivered_at":null,"read_at":null,"failure_reason":null,"raw":null},
 {"message_id":"m-2","direction":"outbound","type":"poll","status":"played","text":"Vote","media":null,"reactions":[],
  "sent_at":null,"delivered_at":null,"read_at":null,"failure_reason":"recipient blocked","raw":null,"new_field":true},
 {"message_id":"m-1","direction":"outbound","type":"text","status":"failed","text":"hi","media":null,"reactions":[],
  "sent_at":"2026-11-20T00:00:00-03:00","delivered_at":null,"read_at":null,"failure_reason":"outside window"}],
 "next_cursor":"bTEw","window":{"recent_window_days":30,"since":"2026-10-23T10:04:05.123Z"}}`

func TestMessagesListWire(t *testing.T) {
	list := func(id string, p *convo.ListMessagesParams) func(context.Context, *convo.Client) (any, error) {
		return func(ctx context.Context, c *convo.Client) (any, error) { return c.Messages.List(ctx, id, p) }
	}
	empty := ok(`{"items":[],"next_cursor":null,"window":{"recent_window_days":30,"since":"2026-10-23T10:04:05.123Z"}}`)
	runWireCases(t, []wireCase{{
		name:   "decode every shape",
		call:   list("6d1f0c2a-3b4e-4f5a-8b6c-7d8e9f0a1b2c", nil),
		method: "GET", path: "/v1/conversations/6d1f0c2a-3b4e-4f5a-8b6c-7d8e9f0a1b2c/messages",
		resp: ok(messagesResp),
		check: func(t *testing.T, got any) {
			page := got.(*convo.MessagePage)
			require.Len(t, page.Items, 7)
			assert.Equal(t, "bTEw", page.NextCursor)
			assert.True(t, page.HasMore())
			assert.Equal(t, 30, page.Window.RecentWindowDays)
			assert.True(t, page.Window.Since.Equal(ts(t, "2026-10-23T10:04:05.123Z")))

			text := page.Items[0]
			assert.Equal(t, "m-7", text.MessageID)
			assert.Equal(t, convo.DirectionOutbound, text.Direction)
			assert.Equal(t, convo.MessageText, text.Type)
			assert.Equal(t, convo.StatusRead, text.Status)
			require.NotNil(t, text.Text)
			assert.Equal(t, "Olá! Como posso ajudar?", *text.Text)
			assert.Nil(t, text.Media)
			require.Len(t, text.Reactions, 1)
			assert.Equal(t, "❤️", text.Reactions[0].Emoji)
			assert.Equal(t, convo.DirectionInbound, text.Reactions[0].Direction)
			assert.True(t, text.Reactions[0].ReactedAt.Equal(ts(t, "2026-11-22T09:10:00Z")))
			assert.True(t, text.DeliveredAt.Equal(ts(t, "2026-11-22T09:05:01.5Z")))
			assert.Nil(t, text.FailureReason)
			assert.JSONEq(t, `{"kind":"text","body":"Olá! Como posso ajudar?"}`, string(text.Raw))

			img := page.Items[1]
			assert.Equal(t, convo.MessageStatus(""), img.Status, "null status")
			require.NotNil(t, img.Media)
			assert.Equal(t, convo.Media{MediaID: "med-6", MediaStatus: convo.MediaAvailable, MimeType: "image/jpeg",
				FileSize: ptr(int64(48213)), Filename: "receipt.jpg"}, *img.Media)
			assert.True(t, img.Media.Available())
			assert.Equal(t, "my receipt", img.TextOrEmpty())
			assert.Nil(t, img.DeliveredAt)
			assert.Nil(t, img.ReadAt)

			unknown := page.Items[2]
			require.NotNil(t, unknown.Media, "the media block is never omitted on a media message")
			assert.Equal(t, "", unknown.Media.MediaID)
			assert.Equal(t, convo.MediaUnknown, unknown.Media.MediaStatus)
			assert.Nil(t, unknown.Media.FileSize)
			assert.False(t, unknown.Media.Available())
			assert.Nil(t, unknown.Text)
			assert.Equal(t, "", unknown.TextOrEmpty())

			noRef := page.Items[3]
			assert.Equal(t, convo.MediaNoReference, noRef.Media.MediaStatus)
			assert.False(t, noRef.Media.Available())

			sys := page.Items[4]
			assert.Equal(t, convo.MessageSystem, sys.Type)
			assert.Nil(t, sys.Text)
			assert.Nil(t, sys.Media)
			assert.Equal(t, "null", string(sys.Raw), "raw null is kept as the JSON null")

			poll := page.Items[5]
			assert.Equal(t, convo.MessageType("poll"), poll.Type, "unknown type kept")
			assert.Equal(t, convo.MessageStatus("played"), poll.Status, "unknown status kept")
			assert.Nil(t, poll.SentAt)
			require.NotNil(t, poll.FailureReason)
			assert.Equal(t, "recipient blocked", *poll.FailureReason)

			last := page.Items[6]
			assert.Nil(t, last.Raw, "raw absent")
			assert.True(t, last.SentAt.Equal(ts(t, "2026-11-20T03:00:00Z")))
		},
	}, {
		name: "since in UTC-3 is sent in UTC, limit and cursor",
		call: list("conv-1", &convo.ListMessagesParams{
			Since:  time.Date(2026, 9, 1, 21, 30, 0, 5e8, time.FixedZone("UTC-3", -3*3600)),
			Limit:  100,
			Cursor: "bTEw",
		}),
		method: "GET", path: "/v1/conversations/conv-1/messages",
		query: "cursor=bTEw&limit=100&since=2026-09-02T00%3A30%3A00.500Z",
		resp:  empty,
		check: func(t *testing.T, got any) {
			page := got.(*convo.MessagePage)
			assert.Empty(t, page.Items)
			assert.False(t, page.HasMore())
		},
	}})
}

func ptr[T any](v T) *T { return &v }

func TestMessagesListErrors(t *testing.T) {
	id := "6d1f0c2a-3b4e-4f5a-8b6c-7d8e9f0a1b2c"
	runErrorCases(t, "GET", "/conversations/"+id+"/messages", func(ctx context.Context, c *convo.Client) error {
		_, err := c.Messages.List(ctx, id, &convo.ListMessagesParams{Limit: 100})
		return err
	}, []apiErr{
		{400, convo.CodeInvalidParam, "limit must be an integer from 1 to 100", "", convo.ErrInvalidParam},
		{404, convo.CodeConversationNotFound, "Conversation not found", "", convo.ErrConversationNotFound},
		errUnauthorized,
		errRateLimited,
	})
}

func TestMessagesEmptyConversationID(t *testing.T) {
	c, m := newMock(t, jsonResp(200, ok(`{}`)))
	_, err := c.Messages.List(context.Background(), "", nil)
	assert.ErrorIs(t, err, convo.ErrEmptyID)

	n := 0
	for _, err := range c.Messages.All(context.Background(), "", nil) {
		n++
		assert.ErrorIs(t, err, convo.ErrEmptyID)
	}
	assert.Equal(t, 1, n, "the error is yielded once")
	assert.Empty(t, m.requests(), "no request for an empty id")
}

func messagePage(ids []string, next string) string {
	var b strings.Builder
	for i, id := range ids {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `{"message_id":%q,"direction":"inbound","type":"text","status":null,"text":"t","media":null,"reactions":[],"sent_at":"2026-11-22T09:00:00.000Z","delivered_at":null,"read_at":null,"failure_reason":null}`, id)
	}
	nc := "null"
	if next != "" {
		nc = fmt.Sprintf("%q", next)
	}
	return ok(`{"items":[` + b.String() + `],"next_cursor":` + nc + `,"window":{"recent_window_days":30,"since":"2026-10-23T10:04:05.123Z"}}`)
}

func threeMessagePages(failOn string) func(*http.Request) (*http.Response, error) {
	pages := map[string]string{
		"":   messagePage([]string{"m9", "m8", "m7"}, "p2"),
		"p2": messagePage([]string{"m6", "m5", "m4"}, "p3"),
		"p3": messagePage([]string{"m3"}, ""),
	}
	return func(r *http.Request) (*http.Response, error) {
		cur := r.URL.Query().Get("cursor")
		if cur == failOn {
			return jsonResp(404, errBody(apiErr{404, convo.CodeConversationNotFound, "Conversation not found", "", nil},
				"GET", "/conversations/conv-1/messages", "ERR-ZZZZZZZZ-0000"))(r)
		}
		return jsonResp(200, pages[cur])(r)
	}
}

func TestMessagesAll(t *testing.T) {
	ctx := context.Background()
	since := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)

	t.Run("three pages stitched in order", func(t *testing.T) {
		c, m := newMock(t, threeMessagePages("none"))
		params := &convo.ListMessagesParams{Since: since, Limit: 3}
		before := *params
		var ids []string
		for msg, err := range c.Messages.All(ctx, "conv-1", params) {
			require.NoError(t, err)
			ids = append(ids, msg.MessageID)
		}
		assert.Equal(t, []string{"m9", "m8", "m7", "m6", "m5", "m4", "m3"}, ids)
		reqs := m.requests()
		require.Len(t, reqs, 3)
		for i, cur := range []string{"", "cursor=p2&", "cursor=p3&"} {
			assert.Equal(t, "GET", reqs[i].Method)
			assert.Equal(t, "/v1/conversations/conv-1/messages", reqs[i].Path)
			assertAPIHeaders(t, reqs[i].Header, false)
			assert.Equal(t, cur+"limit=3&since=2020-01-01T00%3A00%3A00.000Z", reqs[i].RawQuery)
		}
		assert.Equal(t, before, *params, "params not mutated")
	})

	runListingCases(t, listing{
		pages: [3][]string{{"m9", "m8", "m7"}, {"m6", "m5", "m4"}, {"m3"}},
		all: func(ctx context.Context, c *convo.Client, cursor string) iter.Seq2[string, error] {
			return ids(c.Messages.All(ctx, "conv-1", &convo.ListMessagesParams{Cursor: cursor}), func(m convo.Message) string { return m.MessageID })
		},
		reply: threeMessagePages, err: convo.ErrConversationNotFound,
	})
}

// Since and Until are sent in UTC, a sub-millisecond part rounded up to the
// next millisecond (exact for the service's millisecond timestamps; truncating
// would select an item from before Since).
func TestQueryTimesRoundUpToTheMillisecond(t *testing.T) {
	minus3 := time.FixedZone("UTC-3", -3*3600)
	for _, tt := range []struct {
		in   time.Time
		want string
	}{
		{time.Date(2026, 11, 22, 7, 0, 0, 500_000, minus3), "2026-11-22T10:00:00.001Z"},
		{time.Date(2026, 11, 22, 10, 0, 0, 123_000_000, time.UTC), "2026-11-22T10:00:00.123Z"},
		{time.Date(2026, 11, 22, 10, 0, 0, 123_000_001, time.UTC), "2026-11-22T10:00:00.124Z"},
		{time.Date(2026, 11, 22, 23, 59, 59, 999_999_999, time.UTC), "2026-11-23T00:00:00.000Z"},
		{time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC), "2026-11-22T10:00:00.000Z"},
	} {
		c, m := newMock(t, jsonResp(200, ok(`{"items":[],"next_cursor":null}`)))
		_, err := c.Conversations.List(context.Background(), &convo.ListConversationsParams{Since: tt.in, Until: tt.in})
		require.NoError(t, err)
		_, err = c.Messages.List(context.Background(), "c1", &convo.ListMessagesParams{Since: tt.in})
		require.NoError(t, err)
		var got []string
		for _, r := range m.requests() {
			q, _ := url.ParseQuery(r.RawQuery)
			got = append(got, q.Get("since")+" "+q.Get("until"))
		}
		assert.Equal(t, []string{tt.want + " " + tt.want, tt.want + " "}, got, tt.in)
	}
}

// Timestamps decode from the service's layout and any RFC 3339 variant; a
// null, like an absent field, is distinct from the zero time.
func TestTimestampVariants(t *testing.T) {
	want := time.Date(2026, 11, 22, 10, 4, 5, 0, time.UTC)
	for in, w := range map[string]time.Time{
		"2026-11-22T10:04:05.123Z":            want.Add(123 * time.Millisecond),
		"2026-11-22T10:04:05Z":                want,
		"2026-11-22T07:04:05-03:00":           want,
		"2026-11-22T10:04:05.123456789Z":      want.Add(123456789),
		"2026-11-22T12:04:05.5+02:00":         want.Add(500 * time.Millisecond),
		"2026-11-22T10:04:05.000000000+00:00": want,
	} {
		var m convo.Message
		require.NoError(t, json.Unmarshal([]byte(`{"sent_at":"`+in+`","read_at":null}`), &m), in)
		require.NotNil(t, m.SentAt, in)
		assert.True(t, w.Equal(*m.SentAt), in)
		assert.Nil(t, m.ReadAt, "null is not the zero time")
		assert.Nil(t, m.DeliveredAt, "absent is not the zero time")
	}
}

// A listing cut by an error resumes from the NextCursor of the last page
// finished and, across the two runs, yields every message exactly once,
// though messages arrive between the runs.
func TestPagesResumeFromTheLastCursor(t *testing.T) {
	now := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	s := fake.New(t, fake.WithClock(fake.NewManualClock(now)), fake.WithHandlerMiddleware(testkit.Middleware(t)))
	co := s.Company()
	line := co.AddChannel(fake.ChannelAccount{Channel: convo.ChannelChatapp, DisplayName: "Sales", ProviderIdentifier: "5511900000000"})
	ana := co.AddContact(fake.Contact{ChannelAccountID: line, PhoneNumber: "5511987654321", Name: "Ana"})
	conv := co.AddConversation(fake.Conversation{ContactID: ana})
	want := map[string]bool{}
	for i := range 47 {
		want[co.Inbound(conv, fmt.Sprintf("m%d", i), now.Add(-time.Duration(47-i)*time.Minute))] = true
	}
	c := s.Client(convo.WithRetryWait(0, 0))
	ctx := context.Background()
	params := &convo.ListMessagesParams{Limit: 10}

	seen := map[string]int{}
	var cursor string
	pagesRead := 0
	var cut error
	for page, err := range c.Messages.Pages(ctx, conv, params) {
		if err != nil {
			cut = err
			break
		}
		for _, m := range page.Items {
			seen[m.MessageID]++
		}
		cursor = page.NextCursor
		if pagesRead++; pagesRead == 2 {
			s.AddFault(fake.Fault{Path: "/conversations/*/messages", Status: 400, Code: "INVALID_PARAM", Times: 1})
		}
	}
	require.ErrorIs(t, cut, convo.ErrInvalidParam)
	assert.Equal(t, 2, pagesRead, "the fault cut the first run after two pages")
	require.NotEmpty(t, cursor)

	// Messages arrive between the runs: they are newer than the cursor's
	// position and do not shift what is left to read.
	for i := range 5 {
		co.Inbound(conv, fmt.Sprintf("late%d", i), now.Add(time.Duration(i)*time.Second))
	}
	resume := *params
	resume.Cursor = cursor
	for m, err := range c.Messages.All(ctx, conv, &resume) {
		require.NoError(t, err)
		seen[m.MessageID]++
	}
	for id := range want {
		assert.Equal(t, 1, seen[id], "message %s seen once", id)
	}
	for id, n := range seen {
		assert.Equal(t, 1, n, "message %s seen once", id)
	}
}
