package convo

import (
	"errors"
	"net/url"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// queryParams is a typed parameter struct whose query is written by hand.
type queryParams interface {
	query(q *queryBuilder)
}

// The hand-written queries must be what go-querystring makes of the same
// struct's `url` tags (the form Client.Do sends for a struct), byte for byte.
func TestHandBuiltQueriesMatchTheURLTags(t *testing.T) {
	at := time.Date(2026, 11, 22, 10, 4, 5, 123e6, time.UTC)
	tests := []struct {
		name string
		p    queryParams
	}{
		{"messages, zero", &ListMessagesParams{}},
		{"messages, all", &ListMessagesParams{Since: at, Limit: 100, Cursor: "Y3Vy c29y+/=&?é"}},
		{"conversations, zero", &ListConversationsParams{}},
		{"conversations, all", &ListConversationsParams{Channel: ChannelChatapp, ChannelID: "a/b", Status: ConversationAll,
			Assigned: Bool(false), Since: at, Until: at.Add(time.Hour), ChannelIdentifier: "tg:@ana~x",
			Phone: "+55 (11) 98765-4321", Limit: 25, Cursor: "c;1"}},
		{"conversations, assigned", &ListConversationsParams{Assigned: Bool(true)}},
		{"anomalies, zero", &AnomaliesParams{}},
		{"anomalies, all", &AnomaliesParams{Include: []Bucket{BucketUnassigned, BucketAutomationOnly}, ThresholdHours: 6, Limit: 100}},
		{"lookup", &LookupContactParams{PhoneNumberID: "5511900000000", PhoneNumber: "+55 11 98765-4321"}},
		{"lookup, phone only", &LookupContactParams{PhoneNumber: "5511987654321"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want, err := encodeQuery(tt.p)
			require.NoError(t, err)
			var qb queryBuilder
			tt.p.query(&qb)
			got, err := qb.encode("Test")
			require.NoError(t, err)
			assert.Equal(t, want.Encode(), got)
		})
	}
}

func TestHandBuiltQueryRefusesInvalidText(t *testing.T) {
	for _, v := range []string{"a\x00b", "\xff\xfe"} {
		var qb queryBuilder
		(&ListMessagesParams{Cursor: v}).query(&qb)
		_, err := qb.encode("Messages.List")
		require.Error(t, err)
		assert.True(t, errors.Is(err, ErrInvalidText))
		assert.Contains(t, err.Error(), "convo: Messages.List: query parameter cursor")
		assert.NotContains(t, err.Error(), v, "the value itself is never quoted")
	}
}

func TestAppendQueryEscapeIsQueryEscape(t *testing.T) {
	var all []byte
	for c := range 256 {
		all = append(all, byte(c))
	}
	assert.Equal(t, url.QueryEscape(string(all)), string(appendQueryEscape(nil, string(all))))
}
