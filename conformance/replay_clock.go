package conformance

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/convoapi/convo-go/internal/netx"
	"github.com/convoapi/convo-go/internal/recordredact"
)

// ConvofakeClock returns a [ReplayConfig.SetClock] that moves the clock of
// a convofake through its admin API: adminURL and token are what
// convofake prints at start as CONVOFAKE_ADMIN_URL and
// CONVOFAKE_ADMIN_TOKEN. convofake's clock must be frozen (a seed with a
// now, as [SeedFromRecording] makes, or --clock=frozen:…). The token is
// sent only to adminURL, over plain http only on loopback, and never
// appears in an error. hc nil: a client of its own.
func ConvofakeClock(adminURL, token string, hc *http.Client) (func(context.Context, time.Time) error, error) {
	u, err := url.Parse(adminURL)
	switch {
	case err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https"):
		return nil, fmt.Errorf("the admin URL %q is not an absolute http(s) URL", adminURL)
	case u.Scheme == "http" && !netx.IsLoopback(u.Hostname()):
		return nil, fmt.Errorf("the admin URL uses plain http on %s, which would send the admin token in the clear; use loopback or https", u.Host)
	case token == "":
		return nil, fmt.Errorf("the admin token is empty")
	}
	if hc == nil {
		hc = &http.Client{Timeout: 30 * time.Second}
	}
	endpoint := strings.TrimSuffix(adminURL, "/") + "/clock"
	red := recordredact.New(token)
	var mu sync.Mutex
	var last time.Time
	return func(ctx context.Context, at time.Time) error {
		mu.Lock()
		defer mu.Unlock()
		if at.Equal(last) {
			return nil
		}
		body, _ := json.Marshal(map[string]string{"set": at.UTC().Format(time.RFC3339Nano)})
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, bytes.NewReader(body))
		if err != nil {
			return fmt.Errorf("%s", red.String(err.Error()))
		}
		req.Header.Set("Authorization", "Bearer "+token)
		req.Header.Set("Content-Type", "application/json")
		resp, err := hc.Do(req)
		if err != nil {
			return fmt.Errorf("%s", red.String(err.Error()))
		}
		defer resp.Body.Close()
		answer, _ := io.ReadAll(io.LimitReader(resp.Body, 4<<10))
		if resp.StatusCode != http.StatusOK {
			return fmt.Errorf("POST %s answered %d: %s", red.String(endpoint), resp.StatusCode, red.String(strings.TrimSpace(string(answer))))
		}
		last = at
		return nil
	}, nil
}
