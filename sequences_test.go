package convo_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	convo "github.com/convoapi/convo-go"
)

func TestSequencesCancelWire(t *testing.T) {
	cancel := func(p *convo.CancelSequenceParams) func(context.Context, *convo.Client) (any, error) {
		return func(ctx context.Context, c *convo.Client) (any, error) { return c.Sequences.Cancel(ctx, p) }
	}
	runWireCases(t, []wireCase{{
		name:   "with phone_number_id, canceled",
		call:   cancel(&convo.CancelSequenceParams{PhoneNumber: "5511987654321", PhoneNumberID: "109876543210"}),
		method: "POST", path: "/v1/chatapp/sequences/cancel",
		body: `{"phone_number":"5511987654321","phone_number_id":"109876543210"}`,
		resp: ok(`{"canceled":true,"message":"Sequence canceled successfully"}`),
		check: func(t *testing.T, got any) {
			assert.Equal(t, &convo.CancelResult{Canceled: true, Message: "Sequence canceled successfully"}, got)
		},
	}, {
		name:   "without phone_number_id, nothing to cancel is a success",
		call:   cancel(&convo.CancelSequenceParams{PhoneNumber: "5511987654321"}),
		method: "POST", path: "/v1/chatapp/sequences/cancel",
		body: `{"phone_number":"5511987654321"}`,
		resp: ok(`{"canceled":false,"message":"No scheduled sequence for this contact"}`),
		check: func(t *testing.T, got any) {
			assert.Equal(t, &convo.CancelResult{Canceled: false, Message: "No scheduled sequence for this contact"}, got)
		},
	}})
}

func TestSequencesCancelErrors(t *testing.T) {
	runErrorCases(t, "POST", "/chatapp/sequences/cancel", func(ctx context.Context, c *convo.Client) error {
		_, err := c.Sequences.Cancel(ctx, &convo.CancelSequenceParams{PhoneNumber: "5511987654321"})
		return err
	}, []apiErr{
		{400, convo.CodeMissingParam, "phone_number is required", "", convo.ErrMissingParam},
		{404, convo.CodeContactNotFound, "Contact not found", "", convo.ErrContactNotFound},
		{500, convo.CodeCancelFailed, "Failed to cancel the sequence", "", convo.ErrCancelFailed},
		errUnauthorized,
		errRateLimited,
	})
}

func TestSequencesCancelNilParams(t *testing.T) {
	c, m := newMock(t, jsonResp(200, ok(`{}`)))
	_, err := c.Sequences.Cancel(context.Background(), nil)
	require.Error(t, err)
	assert.Empty(t, m.requests())
}
