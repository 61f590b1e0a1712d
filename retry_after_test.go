package convo_test

import (
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	convo "github.com/convoapi/convo-go"
)

// Every kind of nonsense in Retry-After has one outcome: the header is
// ignored, the call retries on its backoff and succeeds, and nothing holds
// the client for what the header said — another call right after goes
// through within the client's pace, not after the nonsense wait.
func TestNonsenseRetryAfterIsIgnoredAlike(t *testing.T) {
	for _, value := range []string{"1000000000000", "1e12", "-1", "9999999999999999999999",
		"Thu, 01 Jan 2099 00:00:00 GMT", "soon", "86401"} {
		t.Run(value, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				var first atomic.Bool
				c := edgeClient(t, func(r *http.Request) *http.Response {
					if r.URL.Path == "/v1/channels" && !first.Swap(true) {
						return &http.Response{StatusCode: http.StatusTooManyRequests, ContentLength: -1,
							Header: http.Header{"Retry-After": {value}, "Date": {time.Now().UTC().Format(http.TimeFormat)}},
							Body:   http.NoBody}
					}
					return okResponse()
				}, convo.WithRetryWait(time.Second, time.Second))

				start := time.Now()
				var meta convo.Response
				_, err := c.Channels.List(t.Context(), convo.CaptureResponse(&meta))
				require.NoError(t, err)
				assert.Equal(t, 2, meta.Attempts)
				took := time.Since(start)
				// The jittered backoff (0.5–1 s), then the limiter's turn as it
				// finds its pace again: never the header's wait.
				assert.True(t, took >= 500*time.Millisecond && took <= 2*time.Second, "the jittered backoff, not the header: %v", took)

				start = time.Now()
				_, err = c.Conversations.List(t.Context(), nil)
				require.NoError(t, err)
				assert.Less(t, time.Since(start), time.Second, "nothing held for the header's wait")
			})
		})
	}
}

// okResponse is an empty page, a success for every listing.
func okResponse() *http.Response {
	return &http.Response{StatusCode: http.StatusOK, ContentLength: -1, Header: http.Header{},
		Body: io.NopCloser(strings.NewReader(`{"success":true,"data":{"items":[],"next_cursor":null}}`))}
}

// Error.RetryAfter holds a wait the client believes, from 0 up to
// MaxRetryAfter, whatever a hostile server sends; nonsense reads 0, as if
// the header were absent, and a wait the client believes but does not sit
// out (longer than WithMaxRetryWait) is told as it was asked.
func TestErrorRetryAfterIsAlwaysBelievable(t *testing.T) {
	serverNow := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	tests := []struct {
		value string
		want  time.Duration
	}{
		{"-999", 0},
		{"-1", 0},
		{"86401", 0},
		{"1000000000000", 0},
		{"9999999999999999999999", 0},
		{"1e12", 0},
		{"soon", 0},
		{"", 0},
		{"Thu, 01 Jan 2095 00:00:00 GMT", 0},
		{"Thu, 01 Jan 2099 00:00:00 GMT", 0},
		{"Sun, 22 Nov 2026 09:00:00 GMT", 0}, // a date already passed: no wait
		{"Sun, 22 Nov 2026 10:00:30 GMT", 30 * time.Second},
		{"3600", time.Hour},
		{"86400", 24 * time.Hour},
		{"0", 0},
		{" 7 ", 7 * time.Second},
	}
	for _, status := range []int{http.StatusTooManyRequests, http.StatusServiceUnavailable} {
		for _, tt := range tests {
			t.Run(fmt.Sprintf("%d/%q", status, tt.value), func(t *testing.T) {
				c := edgeClient(t, func(*http.Request) *http.Response {
					h := http.Header{"Date": {serverNow.Format(http.TimeFormat)}}
					if tt.value != "" {
						h.Set("Retry-After", tt.value)
					}
					return &http.Response{StatusCode: status, ContentLength: -1, Header: h, Body: http.NoBody}
				}, convo.WithMaxRetries(0))
				_, err := c.Channels.List(t.Context())
				var apiErr *convo.Error
				require.ErrorAs(t, err, &apiErr)
				assert.Equal(t, tt.want, apiErr.RetryAfter)
				assert.True(t, apiErr.RetryAfter >= 0 && apiErr.RetryAfter <= convo.MaxRetryAfter)
			})
		}
	}
}
