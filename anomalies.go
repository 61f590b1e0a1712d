package convo

import (
	"context"
	"time"
)

// Bucket names a group of the anomaly report (OpenAPI AnomalyReport).
type Bucket string

// The four buckets. Unanswered and NeverEngaged are always returned; the other
// two only when asked for in AnomaliesParams.Include.
const (
	BucketUnanswered     Bucket = "unanswered"
	BucketNeverEngaged   Bucket = "never_engaged"
	BucketUnassigned     Bucket = "unassigned"
	BucketAutomationOnly Bucket = "automation_only"
)

// AnomaliesParams configures the anomaly report (OpenAPI getAnomalies). The spec does
// not name the query parameters; the service takes include, threshold_hours
// and limit.
type AnomaliesParams struct {
	// Include asks for the opt-in buckets: BucketUnassigned, BucketAutomationOnly.
	Include []Bucket `url:"include,omitempty,comma"`
	// ThresholdHours is how long a last inbound message must have waited to
	// enter a bucket: 1 to 24, default 4.
	ThresholdHours int `url:"threshold_hours,omitempty"`
	// Limit is the number of conversations per bucket: 1 to 100, default 20.
	Limit int `url:"limit,omitempty"`
}

// AnomalyReport is what is wrong now (OpenAPI AnomalyReport): counts per bucket and the
// worst conversations of each, worst first (longest wait first, ties by
// conversation id). It is served from a cache of a few minutes and meant for
// a periodic sweep, not for polling (OpenAPI getAnomalies).
type AnomalyReport struct {
	// Window is the threshold and the per-channel ceilings applied.
	Window AnomalyWindow `json:"window"`
	// Buckets are the counts and worst conversations of each bucket.
	Buckets AnomalyBuckets `json:"buckets"`
}

// AnomalyWindow is the window the report applied.
type AnomalyWindow struct {
	// ThresholdHours is the threshold applied: a last inbound message must
	// have waited at least this long to enter a bucket.
	ThresholdHours int `json:"threshold_hours"`
	// CeilingHoursByChannel is the service window of each channel, 24 hours
	// for channels without one; keys include chatapp, sms, botapp, webchat.
	CeilingHoursByChannel map[Channel]int `json:"ceiling_hours_by_channel"`
}

// AnomalyBuckets holds the buckets. The opt-in ones are nil unless requested.
type AnomalyBuckets struct {
	// Unanswered: the contact spoke and nothing went out after. Always returned.
	Unanswered AnomalyBucket `json:"unanswered"`
	// NeverEngaged: open conversations where the contact never wrote; a count
	// only, never a list. Always returned.
	NeverEngaged BucketCount `json:"never_engaged"`
	// Unassigned: in the unanswered window and no responsible agent. Nil
	// unless BucketUnassigned was asked for in AnomaliesParams.Include.
	Unassigned *AnomalyBucket `json:"unassigned,omitempty"`
	// AutomationOnly: replied to, but only by automation (the caller's own
	// integration included). Nil unless BucketAutomationOnly was asked for.
	AutomationOnly *AnomalyBucket `json:"automation_only,omitempty"`
}

// AnomalyBucket is a count and the worst items, capped by AnomaliesParams.Limit.
type AnomalyBucket struct {
	// Count is the number of conversations in the bucket, not capped.
	Count int `json:"count"`
	// Items are the worst conversations, longest wait first (ties by
	// conversation id), at most Limit.
	Items []AnomalyItem `json:"items"`
}

// BucketCount is a bucket reported as a count only (never_engaged).
type BucketCount struct {
	// Count is the number of conversations in the bucket.
	Count int `json:"count"`
}

// AnomalyItem is a conversation in a bucket (OpenAPI AnomalyReport).
type AnomalyItem struct {
	// ConversationID identifies the conversation (a UUID).
	ConversationID string `json:"conversation_id"`
	// ContactID identifies the contact (a UUID).
	ContactID string `json:"contact_id"`
	// Channel is the conversation's channel; unknown values are kept.
	Channel Channel `json:"channel"`
	// ChannelAccountID is the channel account (or, on webchat, the company's
	// webchat widget).
	ChannelAccountID string `json:"channel_account_id"`
	// LastInboundAt is when the contact last wrote.
	LastInboundAt time.Time `json:"last_inbound_at"`
	// LastMessageAt is when the last message, either way, was exchanged.
	LastMessageAt time.Time `json:"last_message_at"`
	// WaitingHours since the last inbound message (one decimal).
	WaitingHours float64 `json:"waiting_hours"`
	// Assigned reports whether a responsible agent is set.
	Assigned bool `json:"assigned"`
	// UnreadCount is the number of unread inbound messages.
	UnreadCount int `json:"unread_count"`
}

// AnomaliesService reads the anomaly report (OpenAPI getAnomalies).
type AnomaliesService struct{ c *Client }

// Get returns the anomaly report. An unknown bucket name in Include is
// ErrInvalidBucket; Error.InvalidBucket lists the valid names. The service
// limits this endpoint to about one pass per day: do not poll it.
func (s *AnomaliesService) Get(ctx context.Context, params *AnomaliesParams, opts ...Option) (*AnomalyReport, error) {
	r := new(AnomalyReport)
	if err := s.c.call(ctx, "GET", "/conversations/anomalies", params, nil, r, opts); err != nil {
		return nil, err
	}
	return r, nil
}
