package bulk

import (
	"context"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRun runs the smallest cell (200 contacts at 10 requests a second) of
// every setting against every kind of limit, in virtual time over in-memory
// connections, and holds each run to its setting's bounds. The figures come
// from the real-time command (cmd/bulkload); this keeps its code path
// exercised without real time.
func TestRun(t *testing.T) {
	for _, setting := range Settings {
		for _, kind := range Kinds {
			t.Run(string(setting)+"/"+kind.Name, func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					cfg := Config{Setting: setting, Kind: kind, Rate: 10, N: 200, Concurrency: 32,
						Latency: 5 * time.Millisecond, Retries: -1, InMemory: true}
					r, err := Run(context.Background(), cfg)
					require.NoError(t, err)
					t.Logf("%s %s: %v (budget %v), %d failed, %d dups, %d early, %d 429s, %d requests",
						setting, kind.Name, r.Took, cfg.Budget(), r.Failed, r.Duplicates, r.Early, r.Refused, r.Requests)
					assert.Empty(t, cfg.Broken(r))
					assert.GreaterOrEqual(t, r.Requests, cfg.N, "every contact was asked for")
					assert.GreaterOrEqual(t, r.Took, cfg.Ideal()-time.Second, "the limit was in force")
				})
			})
		}
	}
}

// TestRunRefusesAnUnknownSetting: a setting the command does not know is
// an error, not an unpaced run.
func TestRunRefusesAnUnknownSetting(t *testing.T) {
	_, err := Run(context.Background(), Config{Setting: "gentle", Kind: Kinds[0], Rate: 10, N: 1})
	assert.ErrorContains(t, err, `unknown setting "gentle"`)
}
