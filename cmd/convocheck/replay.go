package main

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/convoapi/convo-go/conformance"
)

// runReplay replays the recording o.replay against o.baseURL and returns
// the exit code: 0 no difference, 1 a difference, 2 it could not replay.
// With $CONVOFAKE_ADMIN_URL and $CONVOFAKE_ADMIN_TOKEN it moves that
// convofake's clock to each exchange's recorded time.
func runReplay(ctx context.Context, o *options, stdout, stderr io.Writer) int {
	f, err := os.Open(o.replay)
	if err != nil {
		fmt.Fprintln(stderr, "convocheck: --replay:", err)
		return 2
	}
	defer f.Close()
	cfg := conformance.ReplayConfig{BaseURL: o.baseURL, APIKey: o.apiKey, Pace: o.pace, MaxRequests: o.maxRequests,
		Timeout: o.timeout, AllowInsecureHTTP: o.insecure}
	if o.pace == 0 {
		cfg.Pace = -1
	}
	if adminURL, token := os.Getenv("CONVOFAKE_ADMIN_URL"), os.Getenv("CONVOFAKE_ADMIN_TOKEN"); adminURL != "" || token != "" {
		if cfg.SetClock, err = conformance.ConvofakeClock(adminURL, token, nil); err != nil {
			fmt.Fprintln(stderr, "convocheck: --replay: $CONVOFAKE_ADMIN_URL and $CONVOFAKE_ADMIN_TOKEN (to move convofake's clock):", err)
			return 2
		}
	}
	rep, err := conformance.Replay(ctx, f, cfg)
	if rep != nil {
		writeReport(stdout, rep, o.jsonOut)
	}
	if err != nil {
		fmt.Fprintln(stderr, "convocheck: --replay:", err)
		return 2
	}
	if len(rep.Differences) > 0 {
		return 1
	}
	return 0
}
