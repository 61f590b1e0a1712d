package conformance_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/convoapi/convo-go/conformance"
	"github.com/convoapi/convo-go/internal/conformancetest"
	"github.com/convoapi/convo-go/internal/testkit"
	"github.com/stretchr/testify/require"
)

// keyRun is the shortest piece of a key that no output may hold.
const keyRun = 6

// assertNoPieceOfKey fails when out holds a run of keyRun characters of
// key, or key in any form escaped up to twice. Runs of digits alone are
// left out: the demo data's phone numbers hold "0123456789"'s pieces.
func assertNoPieceOfKey(t *testing.T, what, out, key string) {
	t.Helper()
	for _, run := range testkit.Runs(key, keyRun) {
		if strings.Trim(run, "0123456789") == "" {
			continue
		}
		if strings.Contains(out, run) {
			t.Errorf("%s holds %q, a piece of the key", what, run)
			return
		}
	}
	for _, form := range testkit.Forms(key) {
		if strings.Contains(out, form) {
			t.Errorf("%s holds the key escaped: %q", what, form)
			return
		}
	}
}

// hostile429 answers every request with 429, the key in every form in
// every header it sends, Retry-After included (the form of the request's
// turn), and in every field of its body.
func hostile429(t *testing.T, key string) *httptest.Server {
	forms := testkit.Forms(key)
	var n atomic.Int64
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		i := int(n.Add(1))
		h := w.Header()
		h.Set("Retry-After", forms[i%len(forms)])
		h.Set("X-RateLimit-Remaining", forms[(i+1)%len(forms)])
		h.Set("RateLimit-Policy", forms[(i+2)%len(forms)])
		for j, f := range forms {
			h.Set(fmt.Sprintf("X-Echo-%d", j), f)
		}
		h.Set("Content-Type", "application/json")
		body := map[string]any{"success": false, "timestamp": forms[i%len(forms)],
			"message": map[string]any{"error": "RATE_LIMITED", "message": "slow down " + forms[i%len(forms)], "errorId": forms[(i+3)%len(forms)]}}
		for j, f := range forms {
			body[fmt.Sprintf("echo_%d", j)] = f
		}
		w.WriteHeader(http.StatusTooManyRequests)
		_ = json.NewEncoder(w).Encode(body)
	}))
	t.Cleanup(ts.Close)
	return ts
}

// TestRunNeverEchoesTheKeyOfAHostileServer: a server that answers 429 with
// the key, in every form escaped up to twice, in Retry-After, in every
// header and every body field gets no piece of it into the text or the
// JSON report, whichever form it sends in Retry-After.
func TestRunNeverEchoesTheKeyOfAHostileServer(t *testing.T) {
	for _, key := range testkit.Keys {
		t.Run(key, func(t *testing.T) {
			ts := hostile429(t, key)
			for range testkit.Forms(key) {
				rep, err := conformance.Run(t.Context(), conformance.Config{BaseURL: ts.URL + "/v1", APIKey: key, Pace: -1})
				require.NoError(t, err)
				require.NotEmpty(t, rep.Stopped)
				var text, js bytes.Buffer
				require.NoError(t, rep.WriteText(&text))
				require.NoError(t, rep.WriteJSON(&js))
				assertNoPieceOfKey(t, "the text report", text.String(), key)
				assertNoPieceOfKey(t, "the JSON report", js.String(), key)
				if t.Failed() {
					return
				}
			}
		})
	}
}

// echoEveryForm adds key in every form escaped up to twice to each JSON
// answer, and to each error's text.
func echoEveryForm(key string) func(*http.Request, *int, map[string]any) {
	forms := testkit.Forms(key)
	return func(_ *http.Request, _ *int, b map[string]any) {
		for j, f := range forms {
			b[fmt.Sprintf("echo_%d", j)] = f
		}
		if m := errMessage(b); m != nil {
			m["message"] = fmt.Sprint(m["message"], " key=", forms[len(forms)/2])
		}
	}
}

// echoEveryFormHeaders sets headers the recorder keeps to the key's forms.
func echoEveryFormHeaders(key string) func(http.Header) {
	forms := testkit.Forms(key)
	return func(h http.Header) {
		for j, f := range forms {
			h.Set(fmt.Sprintf("X-RateLimit-Echo-%d", j), f)
		}
		h.Set("Retry-After", forms[0])
	}
}

// TestRecordingAndSeedOfAHostileServerHoldNoPieceOfTheKey: a whole read
// recorded through a server that echoes the key in every form, escaped up
// to twice, in its headers and body fields: neither the recording nor the
// seed made from it holds a piece of the key.
func TestRecordingAndSeedOfAHostileServerHoldNoPieceOfTheKey(t *testing.T) {
	for _, key := range testkit.Keys {
		t.Run(key, func(t *testing.T) {
			recording := recordThrough(t, key, conformancetest.Alteration{Resp: echoEveryForm(key), Header: echoEveryFormHeaders(key)})
			require.Contains(t, string(recording), "[REDACTED]", "the echoed key was there to remove")
			assertNoPieceOfKey(t, "the recording", string(recording), key)

			seed, notes, err := conformance.SeedFromRecording(bytes.NewReader(recording))
			require.NoError(t, err)
			var seedJSON bytes.Buffer
			require.NoError(t, conformance.WriteSeed(&seedJSON, seed))
			assertNoPieceOfKey(t, "the seed", seedJSON.String()+strings.Join(notes, "\n"), key)
		})
	}
}
