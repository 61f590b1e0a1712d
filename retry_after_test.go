package convo_test

import (
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
