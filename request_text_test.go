package convo_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	convo "github.com/convoapi/convo-go"
)

func TestInvalidTextIsRefusedBeforeAnyRequest(t *testing.T) {
	c, m := newMock(t, channelsOK)
	ctx := context.Background()
	tests := []struct {
		name string
		call func() error
	}{
		{"invalid UTF-8 in a body field", func() error {
			_, err := c.Contacts.Create(ctx, &convo.CreateContactParams{PhoneNumberID: "1", PhoneNumber: "5511987654321", Name: "Ana\xff"})
			return err
		}},
		{"NUL in a body field", func() error {
			_, err := c.Contacts.Create(ctx, &convo.CreateContactParams{PhoneNumberID: "1", PhoneNumber: "5511987654321", Name: "Ana\x00"})
			return err
		}},
		{"invalid UTF-8 in a custom field name", func() error {
			_, err := c.Contacts.UpdateCustomFields(ctx, &convo.UpdateCustomFieldsParams{PhoneNumber: "5511987654321", CustomFields: map[string]string{"pl\xc3an": "gold"}})
			return err
		}},
		{"invalid UTF-8 in a query value", func() error {
			_, err := c.Contacts.Lookup(ctx, &convo.LookupContactParams{PhoneNumber: "55\xff"})
			return err
		}},
		{"NUL in a query value", func() error {
			_, err := c.Conversations.List(ctx, &convo.ListConversationsParams{Phone: "5511\x00"})
			return err
		}},
		{"invalid UTF-8 in a path id", func() error {
			_, err := c.Messages.List(ctx, "conv\xff", nil)
			return err
		}},
		{"NUL in a Do path", func() error {
			return c.Do(ctx, "GET", "/x/a%00b", nil, nil, nil)
		}},
		{"NUL in a Do body", func() error {
			return c.Do(ctx, "POST", "/chatapp/tags", nil, map[string]any{"names": []string{"vip\x00"}}, nil)
		}},
		{"NUL escaped in a raw JSON body", func() error {
			return c.Do(ctx, "POST", "/chatapp/tags", nil, []any{rawBody(`{"name":"a\u0000"}`)}, nil)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.call()
			require.Error(t, err)
			assert.ErrorIs(t, err, convo.ErrInvalidText)
			var ite *convo.InvalidTextError
			assert.ErrorAs(t, err, &ite)
		})
	}
	assert.Empty(t, m.requests())

	// A real U+FFFD, and the escape written by hand in raw JSON, are text.
	require.NoError(t, c.Do(ctx, "POST", "/chatapp/tags", nil, map[string]string{"name": "a\uFFFDb"}, nil))
	require.NoError(t, c.Do(ctx, "POST", "/chatapp/tags", nil, rawBody(`{"name":"a\ufffd"}`), nil))
}

// rawBody is raw JSON for Do's body, through a Marshaler.
func rawBody(s string) any { return rawJSON(s) }

type rawJSON string

func (r rawJSON) MarshalJSON() ([]byte, error) { return []byte(r), nil }
