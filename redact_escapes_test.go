package convo_test

import (
	"bytes"
	"context"
	"fmt"
	"html"
	"log/slog"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"unicode/utf16"

	"github.com/jarcoal/httpmock"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	convo "github.com/convoapi/convo-go"
)

// escapings are the ways a server, a proxy or another language's encoder
// may write a key back: Go's quoting, JSON's \uXXXX of every character (and
// of every byte, as a Latin-1 mis-encoding does), PHP's \/, URL and HTML
// escapes.
var escapings = map[string]func(string) string{
	"as is":       func(k string) string { return k },
	"go quote":    func(k string) string { q := strconv.QuoteToASCII(k); return q[1 : len(q)-1] },
	"go bytes":    func(k string) string { return perByte(k, `\x%02x`) },
	"json \\u":    jsonEveryChar,
	"\\u00XX":     func(k string) string { return perByte(k, `\u00%02x`) },
	"slash":       func(k string) string { return strings.ReplaceAll(k, "/", `\/`) },
	"url query":   url.QueryEscape,
	"url path":    url.PathEscape,
	"url bytes":   func(k string) string { return perByte(k, "%%%02X") },
	"url lower":   func(k string) string { return perByte(k, "%%%02x") },
	"html":        html.EscapeString,
	"html number": func(k string) string { return perRune(k, "&#%d;") },
	"html hex":    func(k string) string { return perRune(k, "&#x%X;") },
}

func perByte(s, format string) string {
	var b strings.Builder
	for _, c := range []byte(s) {
		fmt.Fprintf(&b, format, c)
	}
	return b.String()
}

func perRune(s, format string) string {
	var b strings.Builder
	for _, r := range s {
		fmt.Fprintf(&b, format, r)
	}
	return b.String()
}

func jsonEveryChar(s string) string {
	var b strings.Builder
	for _, u := range utf16.Encode([]rune(s)) {
		fmt.Fprintf(&b, `\u%04x`, u)
	}
	return b.String()
}

// TestKeyRedactedInEveryEscaping echoes three keys, in every escaping, into
// every part of an error answer (message, details, errorId, path, header,
// body) and into the path as an id, and looks for any of those forms in
// everything the caller and the debug log can see.
func TestKeyRedactedInEveryEscaping(t *testing.T) {
	keys := []string{
		"sk_live_4eC39HqLyjWDarjtT1zdp7dc",
		"key/with+plus=and/slashes&more<>",
		"clé-ünïcödé-秘密-🔑-0123456789",
	}
	for _, key := range keys {
		for name, esc := range escapings {
			t.Run(name+"/"+key[:6], func(t *testing.T) {
				echo := esc(key)
				var log bytes.Buffer
				mock := httpmock.NewMockTransport()
				mock.RegisterNoResponder(func(r *http.Request) (*http.Response, error) {
					body := `{"success":false,"statusCode":404,"path":"/x/` + echo + `","message":{"error":"NOT_FOUND","message":"no ` +
						echo + `","details":{"k":"` + echo + `"}},"errorId":"` + echo + `"}`
					resp := httpmock.NewStringResponse(http.StatusNotFound, body)
					resp.Header.Set("Content-Type", "application/json")
					resp.Header.Set("X-Echo", echo)
					return resp, nil
				})
				c, err := convo.NewClient(convo.WithAPIKey(key), convo.WithBaseURL("https://api.example.test/v1"),
					convo.WithHTTPClient(&http.Client{Transport: mock}), convo.WithMaxRetries(0),
					convo.WithLogger(slog.New(slog.NewTextHandler(&log, &slog.HandlerOptions{Level: slog.LevelDebug}))))
				require.NoError(t, err)
				_, err = c.Messages.List(context.Background(), key, nil) // the key given as an id, too
				require.Error(t, err)
				var apiErr *convo.Error
				require.ErrorAs(t, err, &apiErr)
				seen := []string{err.Error(), fmt.Sprintf("%#v", err), fmt.Sprintf("%+v", err), log.String(),
					apiErr.Message, string(apiErr.Details), apiErr.ErrorID, apiErr.Path, string(apiErr.Body),
					fmt.Sprint(apiErr.Header)}
				for _, s := range seen {
					for form, f := range escapings {
						assert.NotContains(t, s, f(key), "the %s form of the key leaked", form)
					}
				}
				// An escaping that is not valid JSON (\x) leaves the body unparsed, kept whole.
				assert.Contains(t, apiErr.Message+string(apiErr.Body), "[REDACTED]")
			})
		}
	}
}
