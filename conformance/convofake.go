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

// convofakeAdmin is a client of convofake's admin API.
type convofakeAdmin struct {
	base, token string
	hc          *http.Client
	red         *recordredact.Redactor
}

func newConvofakeAdmin(adminURL, token string, hc *http.Client) (*convofakeAdmin, error) {
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
	return &convofakeAdmin{base: strings.TrimSuffix(adminURL, "/"), token: token, hc: hc, red: recordredact.New(token)}, nil
}

// do sends a request to the admin API and decodes a 200 answer into out
// (when not nil).
func (a *convofakeAdmin) do(ctx context.Context, method, path string, body, out any) error {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, a.base+path, rd)
	if err != nil {
		return fmt.Errorf("%s", a.red.String(err.Error()))
	}
	req.Header.Set("Authorization", "Bearer "+a.token)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := a.hc.Do(req)
	if err != nil {
		return fmt.Errorf("%s", a.red.String(err.Error()))
	}
	defer resp.Body.Close()
	answer, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s %s answered %d: %s", method, a.red.String(a.base+path), resp.StatusCode, a.red.String(strings.TrimSpace(string(answer))))
	}
	if out != nil {
		return json.Unmarshal(answer, out)
	}
	return nil
}

// ConvofakeClock returns a [ReplayConfig.SetClock] that moves the clock of
// a convofake through its admin API: adminURL and token are what
// convofake prints at start as CONVOFAKE_ADMIN_URL and
// CONVOFAKE_ADMIN_TOKEN. convofake's clock must be frozen (a seed with a
// now, as [SeedFromRecording] makes, or --clock=frozen:…). The token is
// sent only to adminURL, over plain http only on loopback, and never
// appears in an error. hc nil: a client of its own.
func ConvofakeClock(adminURL, token string, hc *http.Client) (func(context.Context, time.Time) error, error) {
	a, err := newConvofakeAdmin(adminURL, token, hc)
	if err != nil {
		return nil, err
	}
	var mu sync.Mutex
	var last time.Time
	return func(ctx context.Context, at time.Time) error {
		mu.Lock()
		defer mu.Unlock()
		if at.Equal(last) {
			return nil
		}
		if err := a.do(ctx, http.MethodPost, "/clock", map[string]string{"set": at.UTC().Format(time.RFC3339Nano)}, nil); err != nil {
			return err
		}
		last = at
		return nil
	}, nil
}

// ConvofakeCustomFields returns a [Config.CustomFields] that reads a
// contact's custom fields from a convofake's admin API (GET
// /_fake/state/contacts/{id}), with the address and token convofake prints
// at start. The token is handled as by [ConvofakeClock].
func ConvofakeCustomFields(adminURL, token string, hc *http.Client) (func(context.Context, string) (map[string]string, error), error) {
	a, err := newConvofakeAdmin(adminURL, token, hc)
	if err != nil {
		return nil, err
	}
	return func(ctx context.Context, id string) (map[string]string, error) {
		var ct struct {
			CustomFields map[string]string `json:"custom_fields"`
		}
		if err := a.do(ctx, http.MethodGet, "/state/contacts/"+url.PathEscape(id), nil, &ct); err != nil {
			return nil, err
		}
		return ct.CustomFields, nil
	}, nil
}
