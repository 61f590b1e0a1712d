package main

import (
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Whatever the clock, the rate limit refills with the time that really
// passes, so a client that waits the Retry-After it was given gets through:
// 1,100 requests (the burst is 1,000), 1.5 s, 20 more, all 200. A seed that
// sets "now" freezes convofake's clock. synctest's clock makes the 1.5 s
// instant.
func TestAFrozenClockDoesNotWedgeTheRateLimit(t *testing.T) {
	for _, tc := range []struct {
		name   string
		args   []string
		frozen bool
	}{
		{"real clock", []string{"--seed", "testdata/seed.json", "--clock", "real"}, false},
		{"seed sets now", []string{"--seed", "testdata/seed.json"}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var first, after map[int]int
			synctest.Test(t, func(t *testing.T) {
				h, key := startedHandler(t, tc.args, tc.frozen)
				first = statuses(h, key, 1100)
				time.Sleep(1500 * time.Millisecond)
				after = statuses(h, key, 20)
			})
			assert.Equal(t, map[int]int{200: 1000, 429: 100}, first)
			assert.Equal(t, map[int]int{200: 20}, after)
		})
	}
}

// startedHandler is the API handler convofake builds from args, without a
// listener.
func startedHandler(t *testing.T, args []string, frozen bool) (http.Handler, string) {
	t.Helper()
	cfg, err := parseFlags(args, io.Discard)
	require.NoError(t, err)
	seed, _, err := loadStartSeed(cfg)
	require.NoError(t, err)
	key, _ := startAPIKey(cfg, seed)
	clock := startClock(cfg, seed)
	require.Equal(t, frozen, clock.Manual())
	srv, err := newFake(cfg, seed, key, clock, "http://127.0.0.1:8080", slog.New(slog.DiscardHandler))
	require.NoError(t, err)
	return srv.Handler(), key
}

// statuses sends n GET /v1/channels and counts the statuses.
func statuses(h http.Handler, key string, n int) map[int]int {
	got := map[int]int{}
	for range n {
		rec := httptest.NewRecorder()
		req := httptest.NewRequest(http.MethodGet, "/v1/channels", nil)
		req.Header.Set("Authorization", "Bearer "+key)
		h.ServeHTTP(rec, req)
		got[rec.Code]++
	}
	return got
}
