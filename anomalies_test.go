package convo_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	convo "github.com/convoapi/convo-go"
)

// A getAnomalies answer with the opt-in buckets (docs/behaviour.md, "Anomaly
// report") and an unknown extra bucket.
const anomaliesResp = `{
 "window":{"threshold_hours":6,"ceiling_hours_by_channel":{"chatapp":24,"sms":24,"botapp":24,"webchat":24}},
 "buckets":{
  "unanswered":{"count":2,"items":[
   {"conversation_id":"6d1f0c2a-3b4e-4f5a-8b6c-7d8e9f0a1b2c","contact_id":"c0ffee00-1111-4222-8333-944455556666","channel":"chatapp",
    "channel_account_id":"3f9a7c1e-0b4d-4e2a-9c61-5d8e2b7a1f00","last_inbound_at":"2026-11-22T00:30:00.000Z","last_message_at":"2026-11-22T00:30:00.000Z",
    "waiting_hours":9.5,"assigned":false,"unread_count":4},
   {"conversation_id":"7e2f0c2a-3b4e-4f5a-8b6c-7d8e9f0a1b2c","contact_id":"d0ffee00-1111-4222-8333-944455556666","channel":"webchat",
    "channel_account_id":"w-1","last_inbound_at":"2026-11-22T03:00:00.000Z","last_message_at":"2026-11-22T03:10:00.000Z",
    "waiting_hours":7,"assigned":true,"unread_count":1}]},
  "never_engaged":{"count":12},
  "unassigned":{"count":1,"items":[
   {"conversation_id":"6d1f0c2a-3b4e-4f5a-8b6c-7d8e9f0a1b2c","contact_id":"c0ffee00-1111-4222-8333-944455556666","channel":"chatapp",
    "channel_account_id":"3f9a7c1e-0b4d-4e2a-9c61-5d8e2b7a1f00","last_inbound_at":"2026-11-22T00:30:00.000Z","last_message_at":"2026-11-22T00:30:00.000Z",
    "waiting_hours":9.5,"assigned":false,"unread_count":4}]},
  "automation_only":{"count":0,"items":[]},
  "future_bucket":{"count":5}}}`

const anomaliesDefaultResp = `{
 "window":{"threshold_hours":4,"ceiling_hours_by_channel":{"chatapp":24,"sms":24,"botapp":24,"webchat":24}},
 "buckets":{"unanswered":{"count":0,"items":[]},"never_engaged":{"count":0}}}`

func TestAnomaliesGetWire(t *testing.T) {
	get := func(p *convo.AnomaliesParams) func(context.Context, *convo.Client) (any, error) {
		return func(ctx context.Context, c *convo.Client) (any, error) { return c.Anomalies.Get(ctx, p) }
	}
	runWireCases(t, []wireCase{{
		name: "every parameter",
		call: get(&convo.AnomaliesParams{
			Include:        []convo.Bucket{convo.BucketUnassigned, convo.BucketAutomationOnly},
			ThresholdHours: 6,
			Limit:          100,
		}),
		method: "GET", path: "/v1/conversations/anomalies",
		// include=unassigned,automation_only — the comma is percent-encoded by
		// url.Values.Encode; the server decodes it back to one comma list.
		query: "include=unassigned%2Cautomation_only&limit=100&threshold_hours=6",
		resp:  ok(anomaliesResp),
		check: func(t *testing.T, got any) {
			r := got.(*convo.AnomalyReport)
			assert.Equal(t, 6, r.Window.ThresholdHours)
			assert.Equal(t, map[convo.Channel]int{"chatapp": 24, "sms": 24, "botapp": 24, "webchat": 24}, r.Window.CeilingHoursByChannel)

			u := r.Buckets.Unanswered
			assert.Equal(t, 2, u.Count)
			require.Len(t, u.Items, 2)
			assert.Equal(t, convo.AnomalyItem{
				ConversationID:   "6d1f0c2a-3b4e-4f5a-8b6c-7d8e9f0a1b2c",
				ContactID:        "c0ffee00-1111-4222-8333-944455556666",
				Channel:          convo.ChannelChatapp,
				ChannelAccountID: "3f9a7c1e-0b4d-4e2a-9c61-5d8e2b7a1f00",
				LastInboundAt:    ts(t, "2026-11-22T00:30:00.000Z"),
				LastMessageAt:    ts(t, "2026-11-22T00:30:00.000Z"),
				WaitingHours:     9.5,
				Assigned:         false,
				UnreadCount:      4,
			}, u.Items[0])
			assert.Equal(t, convo.ChannelWebchat, u.Items[1].Channel)
			assert.Equal(t, 7.0, u.Items[1].WaitingHours)
			assert.True(t, u.Items[1].Assigned)

			assert.Equal(t, 12, r.Buckets.NeverEngaged.Count)
			require.NotNil(t, r.Buckets.Unassigned)
			assert.Equal(t, 1, r.Buckets.Unassigned.Count)
			require.Len(t, r.Buckets.Unassigned.Items, 1)
			require.NotNil(t, r.Buckets.AutomationOnly)
			assert.Equal(t, 0, r.Buckets.AutomationOnly.Count)
			assert.Empty(t, r.Buckets.AutomationOnly.Items)
		},
	}, {
		name:   "nil params: defaults, opt-in buckets absent",
		call:   get(nil),
		method: "GET", path: "/v1/conversations/anomalies",
		resp: ok(anomaliesDefaultResp),
		check: func(t *testing.T, got any) {
			r := got.(*convo.AnomalyReport)
			assert.Equal(t, 4, r.Window.ThresholdHours)
			assert.Equal(t, 0, r.Buckets.Unanswered.Count)
			assert.Nil(t, r.Buckets.Unassigned, "not requested, not returned")
			assert.Nil(t, r.Buckets.AutomationOnly)
		},
	}, {
		name:   "one opt-in bucket",
		call:   get(&convo.AnomaliesParams{Include: []convo.Bucket{convo.BucketAutomationOnly}}),
		method: "GET", path: "/v1/conversations/anomalies",
		query: "include=automation_only",
		resp:  ok(anomaliesDefaultResp),
	}, {
		name:   "zero params send nothing",
		call:   get(&convo.AnomaliesParams{}),
		method: "GET", path: "/v1/conversations/anomalies",
		resp: ok(anomaliesDefaultResp),
	}})
}

func TestAnomaliesGetErrors(t *testing.T) {
	details := `{"valid_buckets":["unanswered","never_engaged","unassigned","automation_only"],"opt_in":["unassigned","automation_only"]}`
	runErrorCases(t, "GET", "/conversations/anomalies", func(ctx context.Context, c *convo.Client) error {
		_, err := c.Anomalies.Get(ctx, &convo.AnomaliesParams{Include: []convo.Bucket{"stale"}})
		return err
	}, []apiErr{
		{400, convo.CodeInvalidBucket, "Unknown bucket: stale", details, convo.ErrInvalidBucket},
		{400, convo.CodeInvalidParam, "threshold_hours must be an integer from 1 to 24", "", convo.ErrInvalidParam},
		errUnauthorized,
		errRateLimited,
	})
}

// Unknown bucket names are sent as given: the server judges. (Decoding the
// INVALID_BUCKET details: TestErrorEnvelopeIsDecoded.)
func TestAnomaliesUnknownBucketIsSentAsGiven(t *testing.T) {
	details := `{"valid_buckets":["unanswered","never_engaged","unassigned","automation_only"],"opt_in":["unassigned","automation_only"]}`
	c, m := newMock(t, jsonResp(400, errBody(apiErr{400, convo.CodeInvalidBucket, "Unknown bucket: stale", details, nil},
		"GET", "/conversations/anomalies", "ERR-1A2B3C4D-5E6F")))
	_, err := c.Anomalies.Get(context.Background(), &convo.AnomaliesParams{Include: []convo.Bucket{convo.BucketUnassigned, "stale"}})
	require.ErrorIs(t, err, convo.ErrInvalidBucket)
	assert.Equal(t, "include=unassigned%2Cstale", m.requests()[0].RawQuery)
}
