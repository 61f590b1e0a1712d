package convo_test

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	convo "github.com/convoapi/convo-go"
)

// A listConversations answer, plus fields the SDK does not know and an unknown
// channel value.
const conversationsResp = `{"items":[
 {"id":"6d1f0c2a-3b4e-4f5a-8b6c-7d8e9f0a1b2c","contact_id":"c0ffee00-1111-4222-8333-944455556666","channel":"chatapp",
  "channel_account_id":"3f9a7c1e-0b4d-4e2a-9c61-5d8e2b7a1f00","channel_identifier":"5511987654321","status":"open","assigned":false,
  "unread_count":3,"last_inbound_at":"2026-11-22T09:00:00.250Z","last_message_at":"2026-11-22T09:30:00.000Z","created_at":"2026-11-01T08:00:00.000Z",
  "priority":"high","labels":["a","b"],"sla":{"breached":true}},
 {"id":"c-2","contact_id":"p-2","channel":"carrierpigeon","channel_account_id":"w-1","channel_identifier":"@maria","status":"snoozed",
  "assigned":true,"unread_count":0,"last_inbound_at":null,"last_message_at":"2026-11-21T18:30:00-03:00","created_at":"2026-11-21T18:30:00Z"}],
 "next_cursor":"eyJvIjoyNX0="}`

func TestConversationsListWire(t *testing.T) {
	utcMinus3 := time.FixedZone("UTC-3", -3*60*60)
	list := func(p *convo.ListConversationsParams) func(context.Context, *convo.Client) (any, error) {
		return func(ctx context.Context, c *convo.Client) (any, error) { return c.Conversations.List(ctx, p) }
	}
	runWireCases(t, []wireCase{{
		name:   "nil params",
		call:   list(nil),
		method: "GET", path: "/v1/conversations",
		resp: ok(conversationsResp),
		check: func(t *testing.T, got any) {
			page := got.(*convo.Page[convo.Conversation])
			require.Len(t, page.Items, 2)
			assert.Equal(t, "eyJvIjoyNX0=", page.NextCursor)
			assert.True(t, page.HasMore())

			c0 := page.Items[0]
			assert.Equal(t, "6d1f0c2a-3b4e-4f5a-8b6c-7d8e9f0a1b2c", c0.ID)
			assert.Equal(t, "c0ffee00-1111-4222-8333-944455556666", c0.ContactID)
			assert.Equal(t, convo.ChannelChatapp, c0.Channel)
			assert.Equal(t, "3f9a7c1e-0b4d-4e2a-9c61-5d8e2b7a1f00", c0.ChannelAccountID)
			assert.Equal(t, "5511987654321", c0.ChannelIdentifier)
			assert.Equal(t, convo.ConversationOpen, c0.Status)
			assert.False(t, c0.Assigned)
			assert.Equal(t, 3, c0.UnreadCount)
			require.NotNil(t, c0.LastInboundAt)
			assert.True(t, c0.LastInboundAt.Equal(ts(t, "2026-11-22T09:00:00.250Z")))
			require.NotNil(t, c0.LastMessageAt)
			assert.True(t, c0.CreatedAt.Equal(ts(t, "2026-11-01T08:00:00.000Z")))
			// Unknown fields are kept, as sent.
			require.Len(t, c0.Extra, 3)
			assert.JSONEq(t, `"high"`, string(c0.Extra["priority"]))
			assert.JSONEq(t, `["a","b"]`, string(c0.Extra["labels"]))
			assert.JSONEq(t, `{"breached":true}`, string(c0.Extra["sla"]))
			// And written back together with the known ones.
			b, err := json.Marshal(c0)
			require.NoError(t, err)
			var back map[string]json.RawMessage
			require.NoError(t, json.Unmarshal(b, &back))
			assert.JSONEq(t, `"high"`, string(back["priority"]))
			assert.JSONEq(t, `"6d1f0c2a-3b4e-4f5a-8b6c-7d8e9f0a1b2c"`, string(back["id"]))

			c1 := page.Items[1]
			assert.Equal(t, convo.Channel("carrierpigeon"), c1.Channel, "unknown channel kept")
			assert.Equal(t, convo.ConversationStatus("snoozed"), c1.Status, "unknown status kept")
			assert.True(t, c1.Assigned)
			assert.Nil(t, c1.LastInboundAt, "null is not the zero time")
			assert.True(t, c1.LastMessageAt.Equal(ts(t, "2026-11-21T21:30:00Z")), "any RFC 3339 offset parses")
			assert.Nil(t, c1.Extra)
		},
	}, {
		name: "every filter",
		call: list(&convo.ListConversationsParams{
			Channel:           convo.ChannelChatapp,
			ChannelID:         "3f9a7c1e-0b4d-4e2a-9c61-5d8e2b7a1f00",
			Status:            convo.ConversationAll,
			Assigned:          convo.Bool(false),
			Since:             time.Date(2026, 11, 22, 7, 4, 5, 123456789, utcMinus3), // sent rounded up: .124
			Until:             time.Date(2026, 11, 23, 0, 0, 0, 0, time.UTC),
			ChannelIdentifier: "5511987654321",
			Phone:             "+55 11 98765-4321",
			Limit:             100,
			Cursor:            "abc/+=",
		}),
		method: "GET", path: "/v1/conversations",
		query: "assigned=false&channel=chatapp&channel_id=3f9a7c1e-0b4d-4e2a-9c61-5d8e2b7a1f00" +
			"&channel_identifier=5511987654321&cursor=abc%2F%2B%3D&limit=100&phone=%2B55+11+98765-4321" +
			"&since=2026-11-22T10%3A04%3A05.124Z&status=all&until=2026-11-23T00%3A00%3A00.000Z",
		resp: ok(`{"items":[],"next_cursor":null}`),
		check: func(t *testing.T, got any) {
			page := got.(*convo.Page[convo.Conversation])
			assert.Empty(t, page.Items)
			assert.Equal(t, "", page.NextCursor)
			assert.False(t, page.HasMore())
		},
	}, {
		name:   "assigned true, status resolved, webchat",
		call:   list(&convo.ListConversationsParams{Assigned: convo.Bool(true), Status: convo.ConversationResolved, Channel: convo.ChannelWebchat}),
		method: "GET", path: "/v1/conversations",
		query: "assigned=true&channel=webchat&status=resolved",
		resp:  ok(`{"items":[],"next_cursor":null}`),
	}, {
		name:   "zero values send nothing",
		call:   list(&convo.ListConversationsParams{}),
		method: "GET", path: "/v1/conversations",
		resp: ok(`{"items":[],"next_cursor":null}`),
	}})
}

func TestConversationsListDoesNotMutateParams(t *testing.T) {
	c, _ := newMock(t, jsonResp(200, ok(`{"items":[],"next_cursor":null}`)))
	since := time.Date(2026, 11, 22, 7, 0, 0, 0, time.FixedZone("UTC-3", -3*3600))
	p := &convo.ListConversationsParams{Since: since, Cursor: "x"}
	before := *p
	_, err := c.Conversations.List(context.Background(), p)
	require.NoError(t, err)
	assert.Equal(t, before, *p)
	assert.Equal(t, "UTC-3", p.Since.Location().String())
}

func TestConversationsListErrors(t *testing.T) {
	runErrorCases(t, "GET", "/conversations", func(ctx context.Context, c *convo.Client) error {
		_, err := c.Conversations.List(ctx, &convo.ListConversationsParams{Status: "closed"})
		return err
	}, []apiErr{
		{400, convo.CodeInvalidParam, "status must be one of open, resolved, archived, all", "", convo.ErrInvalidParam},
		errUnauthorized,
		errRateLimited,
	})
}

// conversationPage writes one page of the list with the given ids and next cursor.
func conversationPage(ids []string, next string) string {
	items := ""
	for i, id := range ids {
		if i > 0 {
			items += ","
		}
		items += fmt.Sprintf(`{"id":%q,"contact_id":"p","channel":"chatapp","channel_account_id":"a","channel_identifier":"5511","status":"open","assigned":false,"unread_count":0,"last_inbound_at":null,"last_message_at":"2026-11-22T09:00:00.000Z","created_at":"2026-11-22T09:00:00.000Z"}`, id)
	}
	nc := "null"
	if next != "" {
		nc = fmt.Sprintf("%q", next)
	}
	return ok(`{"items":[` + items + `],"next_cursor":` + nc + `}`)
}

// threeConversationPages answers by cursor: "", "p2", "p3"; the page whose
// cursor is failOn answers 400 INVALID_PARAM (a cursor not issued).
func threeConversationPages(failOn string) func(*http.Request) (*http.Response, error) {
	pages := map[string]string{
		"":   conversationPage([]string{"c1", "c2"}, "p2"),
		"p2": conversationPage([]string{"c3", "c4"}, "p3"),
		"p3": conversationPage([]string{"c5"}, ""),
	}
	return func(r *http.Request) (*http.Response, error) {
		cur := r.URL.Query().Get("cursor")
		if cur == failOn {
			return jsonResp(400, errBody(apiErr{400, convo.CodeInvalidParam, "cursor is invalid", "", nil}, "GET", "/conversations", "ERR-AAAAAAAA-BBBB"))(r)
		}
		return jsonResp(200, pages[cur])(r)
	}
}

func TestConversationsAll(t *testing.T) {
	ctx := context.Background()

	t.Run("three pages stitched in order", func(t *testing.T) {
		c, m := newMock(t, threeConversationPages("none"))
		params := &convo.ListConversationsParams{Status: convo.ConversationAll, Limit: 2}
		before := *params
		var ids []string
		for conv, err := range c.Conversations.All(ctx, params) {
			require.NoError(t, err)
			ids = append(ids, conv.ID)
		}
		assert.Equal(t, []string{"c1", "c2", "c3", "c4", "c5"}, ids)
		reqs := m.requests()
		require.Len(t, reqs, 3)
		for _, r := range reqs {
			assert.Equal(t, "GET", r.Method)
			assert.Equal(t, "/v1/conversations", r.Path)
			assertAPIHeaders(t, r.Header, false)
		}
		assert.Equal(t, "limit=2&status=all", reqs[0].RawQuery)
		assert.Equal(t, "cursor=p2&limit=2&status=all", reqs[1].RawQuery)
		assert.Equal(t, "cursor=p3&limit=2&status=all", reqs[2].RawQuery)
		assert.Equal(t, before, *params, "params not mutated")
	})

	runListingCases(t, listing{
		pages: [3][]string{{"c1", "c2"}, {"c3", "c4"}, {"c5"}},
		all: func(ctx context.Context, c *convo.Client, cursor string) iter.Seq2[string, error] {
			return ids(c.Conversations.All(ctx, &convo.ListConversationsParams{Cursor: cursor}), func(c convo.Conversation) string { return c.ID })
		},
		reply: threeConversationPages, err: convo.ErrInvalidParam,
	})
}
