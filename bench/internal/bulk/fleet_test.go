package bulk_test

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/convoapi/convo-go/bench/internal/bulk"
)

// TestMain lets this test binary be a client of a run of several: RunFleet
// starts its clients from the running binary, which here is this one.
func TestMain(m *testing.M) {
	if bulk.IsChild() {
		os.Exit(bulk.ChildMain())
	}
	os.Exit(m.Run())
}

// TestRunFleet runs a small cell (100 contacts at 100/s under a token
// bucket) with two clients, each in a process of its own, over loopback
// TCP, in real time. It holds the run to its counts only (no failed call,
// every contact created once, each client's share reported and seen in the
// journal), not to its time: real time on a busy machine is not a test's
// to judge; cmd/bulkload's figures are.
func TestRunFleet(t *testing.T) {
	if testing.Short() {
		t.Skip("starts processes and takes a second or two of real time")
	}
	bucket, _ := bulk.KindNamed("bucket")
	cfg := bulk.Config{Setting: bulk.Adaptive, Kind: bucket, Rate: 100, N: 100, Clients: 2, Concurrency: 8,
		Latency: 5 * time.Millisecond, Retries: -1}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	r, err := bulk.Run(ctx, cfg)
	require.NoError(t, err)
	t.Logf("%v (budget %v), %d failed, %d dups, %d early, %d 429s, %d requests, Jain %.2f, clients %+v",
		r.Took, cfg.Budget(), r.Failed, r.Duplicates, r.Early, r.Refused, r.Requests, r.Jain(), r.Clients)

	assert.Zero(t, r.Failed)
	assert.Zero(t, r.Duplicates)
	assert.Zero(t, r.Early)
	assert.Equal(t, cfg.N, r.Requests-r.Refused, "each contact asked for once, but for the 429s")
	require.Len(t, r.Clients, 2)
	requests := 0
	for i, c := range r.Clients {
		assert.Equal(t, 50, c.Calls, "client %d's share", i)
		assert.Positive(t, c.Finish, "client %d", i)
		assert.LessOrEqual(t, c.Finish, r.Took, "client %d", i)
		assert.GreaterOrEqual(t, c.Requests, c.Calls, "client %d's requests are in the journal under its header", i)
		requests += c.Requests
	}
	assert.Equal(t, r.Requests, requests, "every request is some client's")
}
