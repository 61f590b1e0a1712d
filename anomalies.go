package convo

import (
	"context"
	"time"
)

// Bucket names a group of the anomaly report (spec §2.6).
type Bucket string

// The four buckets. Unanswered and NeverEngaged are always returned; the other
// two only when asked for in AnomaliesParams.Include.
const (
	BucketUnanswered     Bucket = "unanswered"
	BucketNeverEngaged   Bucket = "never_engaged"
	BucketUnassigned     Bucket = "unassigned"
	BucketAutomationOnly Bucket = "automation_only"
)

// AnomaliesParams configures the anomaly report (spec §4.4; names per D4).
type AnomaliesParams struct {
	// Include asks for the opt-in buckets: BucketUnassigned, BucketAutomationOnly.
	Include []Bucket `url:"include,omitempty,comma"`
	// ThresholdHours is how long a last inbound message must have waited to
	// enter a bucket: 1 to 24, default 4.
	ThresholdHours int `url:"threshold_hours,omitempty"`
	// Limit is the number of conversations per bucket: 1 to 100, default 20.
	Limit int `url:"limit,omitempty"`
}

// AnomalyReport is what is wrong now (spec §2.6): counts per bucket and the
// worst conversations of each, worst first (D28). It is served from a cache of
// a few minutes and meant for a periodic sweep (rule 4.4.3).
type AnomalyReport struct {
	Window  AnomalyWindow  `json:"window"`
	Buckets AnomalyBuckets `json:"buckets"`
}

// AnomalyWindow is the window the report applied.
type AnomalyWindow struct {
	ThresholdHours int `json:"threshold_hours"`
	// CeilingHoursByChannel is the service window of each channel, 24 hours
	// for channels without one; keys include chatapp, sms, botapp, webchat.
	CeilingHoursByChannel map[Channel]int `json:"ceiling_hours_by_channel"`
}

// AnomalyBuckets holds the buckets. The opt-in ones are nil unless requested.
type AnomalyBuckets struct {
	Unanswered     AnomalyBucket  `json:"unanswered"`
	NeverEngaged   BucketCount    `json:"never_engaged"`
	Unassigned     *AnomalyBucket `json:"unassigned,omitempty"`
	AutomationOnly *AnomalyBucket `json:"automation_only,omitempty"`
}

// AnomalyBucket is a count and the worst items, capped by AnomaliesParams.Limit.
type AnomalyBucket struct {
	Count int           `json:"count"`
	Items []AnomalyItem `json:"items"`
}

// BucketCount is a bucket reported as a count only (never_engaged).
type BucketCount struct {
	Count int `json:"count"`
}

// AnomalyItem is a conversation in a bucket (spec §2.6).
type AnomalyItem struct {
	ConversationID   string    `json:"conversation_id"`
	ContactID        string    `json:"contact_id"`
	Channel          Channel   `json:"channel"`
	ChannelAccountID string    `json:"channel_account_id"`
	LastInboundAt    time.Time `json:"last_inbound_at"`
	LastMessageAt    time.Time `json:"last_message_at"`
	// WaitingHours since the last inbound message (one decimal).
	WaitingHours float64 `json:"waiting_hours"`
	Assigned     bool    `json:"assigned"`
	UnreadCount  int     `json:"unread_count"`
}

// AnomaliesService reads the anomaly report (spec §4.4).
type AnomaliesService struct{ c *Client }

// Get returns the anomaly report. An unknown bucket name in Include is
// ErrInvalidBucket; Error.InvalidBucket lists the valid names. The service
// limits this endpoint to about one pass per day: do not poll it.
func (s *AnomaliesService) Get(ctx context.Context, params *AnomaliesParams) (*AnomalyReport, error) {
	q, err := encodeQuery(params)
	if err != nil {
		return nil, err
	}
	r := new(AnomalyReport)
	if err := s.c.call(ctx, "GET", "/conversations/anomalies", q, nil, r); err != nil {
		return nil, err
	}
	return r, nil
}
