package convo

import (
	"context"
	"fmt"
)

// CancelSequenceParams names the contact whose sequence is cancelled (OpenAPI cancelSequence).
type CancelSequenceParams struct {
	// PhoneNumber is required.
	PhoneNumber string `json:"phone_number,omitempty"`
	// PhoneNumberID is optional: without it the contact with the most recent
	// interaction across the company is taken.
	PhoneNumberID string `json:"phone_number_id,omitempty"`
}

// CancelResult says what a cancel did. Canceled false (nothing was scheduled)
// is a success, not an error.
type CancelResult struct {
	// Canceled is true when a scheduled sequence was cancelled, false when
	// there was none (still HTTP 200: OpenAPI cancelSequence).
	Canceled bool `json:"canceled"`
	// Message is the service's confirmation text, for humans.
	Message string `json:"message"`
}

// SequencesService cancels scheduled sequences (OpenAPI cancelSequence).
type SequencesService struct{ c *Client }

// Cancel cancels the contact's scheduled sequence. Errors: ErrMissingParam,
// ErrContactNotFound, and ErrCancelFailed (500) when the cancellation failed.
// Being a POST, it is never retried except on 429.
func (s *SequencesService) Cancel(ctx context.Context, params *CancelSequenceParams, opts ...Option) (*CancelResult, error) {
	if params == nil {
		return nil, fmt.Errorf("convo: Sequences.Cancel: %w", errNilParams)
	}
	out := new(CancelResult)
	if err := s.c.call(ctx, "POST", "/chatapp/sequences/cancel", nil, params, out, opts); err != nil {
		return nil, err
	}
	return out, nil
}
