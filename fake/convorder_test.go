package fake_test

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	convo "github.com/convoapi/convo-go"
	"github.com/convoapi/convo-go/fake"
)

func listPage(t *testing.T, s *fake.Server, query string) (ids []string, next string) {
	t.Helper()
	req := httptest.NewRequest(http.MethodGet, "/v1/conversations?"+query, nil)
	req.Header.Set("Authorization", "Bearer "+s.APIKey())
	rec := httptest.NewRecorder()
	s.Handler().ServeHTTP(rec, req)
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	var env struct {
		Data struct {
			Items []struct {
				ID string `json:"id"`
			} `json:"items"`
			NextCursor *string `json:"next_cursor"`
		} `json:"data"`
	}
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &env))
	for _, it := range env.Data.Items {
		ids = append(ids, it.ID)
	}
	if env.Data.NextCursor != nil {
		next = *env.Data.NextCursor
	}
	return ids, next
}

// Paging while messages arrive, conversations are created and the order
// index is rebuilt or patched between pages: the pages, put end to end,
// are exactly the list as it stood at the first page.
func TestConversationPagesKeepTheFirstPagesOrderUnderChange(t *testing.T) {
	for seed := range uint64(20) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(seed, 7))
			s := newServer(t, fake.WithClock(fake.NewManualClock(t0)))
			co := s.Company()
			acc := co.AddChannel(fake.ChannelAccount{Channel: convo.ChannelChatapp})
			var convs []string
			addConv := func() {
				ct := co.AddContact(fake.Contact{ChannelAccountID: acc, PhoneNumber: fmt.Sprintf("55119%08d", len(convs))})
				cv := co.AddConversation(fake.Conversation{ContactID: ct, CreatedAt: t0.Add(-time.Duration(rng.IntN(500)) * time.Minute)})
				convs = append(convs, cv)
			}
			addMsg := func() {
				at := t0.Add(-time.Duration(rng.IntN(600)) * time.Minute) // ties and backfills included
				co.AddMessage(convs[rng.IntN(len(convs))], fake.Message{Sender: fake.SenderContact, Text: "x", At: at})
			}
			for range 90 {
				addConv()
			}
			for range 150 {
				addMsg()
			}
			want, _ := listPage(t, s, "status=all&limit=100")
			require.Len(t, want, 90)

			var got []string
			ids, next := listPage(t, s, "status=all&limit=7")
			got = append(got, ids...)
			for next != "" {
				for range rng.IntN(80) { // sometimes enough to re-sort the index
					if rng.IntN(10) == 0 {
						addConv()
					} else {
						addMsg()
					}
				}
				ids, next = listPage(t, s, "status=all&limit=7&cursor="+url.QueryEscape(next))
				got = append(got, ids...)
			}
			assert.Equal(t, want, got)
		})
	}
}

// On the conversation list (docs/behaviour.md, Pagination): a conversation without messages sorts by its
// created_at; a message backfilled into it later (older than its created_at)
// must not make it come back on a later page.
func TestConversationCursorStableWhileBackfilling(t *testing.T) {
	s, b := newBasic(t)
	var convs []string
	for i := 0; i < 4; i++ {
		convs = append(convs, b.co.AddConversation(fake.Conversation{ContactID: b.ana, CreatedAt: t0.Add(-time.Duration(i+1) * time.Hour)}))
	}
	p := listConvs(t, s, url.Values{"limit": {"1"}})
	got := p.ids()
	require.Equal(t, []string{convs[0]}, got)
	// Backfill into the conversation already read: a message older than
	// every created_at (created_at moves back with it).
	b.co.Inbound(convs[0], "history", t0.Add(-48*time.Hour))
	for p.NextCursor != nil {
		p = listConvs(t, s, url.Values{"limit": {"1"}, "cursor": {*p.NextCursor}})
		got = append(got, p.ids()...)
	}
	assert.Equal(t, convs, got)
}
