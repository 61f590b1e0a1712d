package convo_test

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/jarcoal/httpmock"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	convo "github.com/convoapi/convo-go"
	"github.com/convoapi/convo-go/internal/testkit"
)

// TestKeyRedactedInEveryEscaping echoes three keys, in every escaping, into
// every part of an error answer (message, details, errorId, path, header,
// body) and into the path as an id, and looks for any of those forms in
// everything the caller and the debug log can see.
func TestKeyRedactedInEveryEscaping(t *testing.T) {
	for _, key := range testkit.Keys {
		for name, esc := range testkit.Escapings {
			t.Run(name+"/"+key[:6], func(t *testing.T) {
				seen, apiErr := echoKey(t, key, esc(key))
				assertNoForm(t, key, seen)
				// An escaping that is not valid JSON (\x) leaves the body unparsed, kept whole.
				assert.Contains(t, apiErr.Message+string(apiErr.Body), "[REDACTED]")
			})
		}
	}
}

// TestKeyRedactedEscapedTwice: the same with the key escaped twice over,
// by every escaping of every escaping (\\u0073 is \u0073 escaped again, a
// JSON body's field then holds the once-escaped form; %2573 is %73).
func TestKeyRedactedEscapedTwice(t *testing.T) {
	for _, key := range testkit.Keys {
		for name1, e1 := range testkit.Escapings {
			for name2, e2 := range testkit.Escapings {
				t.Run(name1+" then "+name2+"/"+key[:6], func(t *testing.T) {
					seen, _ := echoKey(t, key, e2(e1(key)))
					assertNoForm(t, key, seen)
					for _, s := range seen {
						assert.NotContains(t, s, e2(e1(key)), "the twice-escaped form leaked")
					}
				})
			}
		}
	}
}

// echoKey makes a call with key whose answer echoes echo into every part of
// an error answer, and the key as an id in the path; it returns everything
// the caller and the debug log see, and the error.
func echoKey(t *testing.T, key, echo string) ([]string, *convo.Error) {
	t.Helper()
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
	return []string{err.Error(), fmt.Sprintf("%#v", err), fmt.Sprintf("%+v", err), log.String(),
		apiErr.Message, string(apiErr.Details), apiErr.ErrorID, apiErr.Path, string(apiErr.Body),
		fmt.Sprint(apiErr.Header)}, apiErr
}

// assertNoForm fails on any escaped form of key in any of seen.
func assertNoForm(t *testing.T, key string, seen []string) {
	t.Helper()
	for _, s := range seen {
		for form, f := range testkit.Escapings {
			assert.NotContains(t, s, f(key), "the %s form of the key leaked", form)
		}
	}
}

// TestKeyNeverSurvivesTheExcerptCut puts the key, escaped once or twice by
// every escaping, into a body that is not the envelope (a proxy's page),
// at every offset around the 512-byte cut of Error.Body, and holds every
// text the caller and the log see to this: no run of six characters of the
// key, in the form the server wrote it, escaped once or not at all.
func TestKeyNeverSurvivesTheExcerptCut(t *testing.T) {
	for _, key := range testkit.Keys {
		for name1, e1 := range testkit.Escapings {
			for name2, e2 := range testkit.Escapings {
				echo := e2(e1(key))
				t.Run(name1+" then "+name2+"/"+key[:6], func(t *testing.T) {
					// In a bubble the call's measured durations (in the error
					// and the log) are 0: a real one, such as 2.012345ms,
					// can hold six characters of a key of digits.
					synctest.Test(t, func(t *testing.T) {
						for _, at := range []int{400, 480, 500, 505, 508, 511, 512} {
							if at > 512+len(echo) {
								continue
							}
							page := "<html><body>" + strings.Repeat("x", at-len("<html><body>")) + echo + "</body></html>"
							seen := echoPage(t, key, page)
							assertNoRun(t, key, seen, e1, e2)
						}
					})
				})
			}
		}
	}
}

// echoPage makes a call with key whose 502 answer is page, and returns
// everything the caller and the debug log see.
func echoPage(t *testing.T, key, page string) []string {
	t.Helper()
	var log bytes.Buffer
	mock := httpmock.NewMockTransport()
	mock.RegisterNoResponder(httpmock.NewStringResponder(http.StatusBadGateway, page))
	c, err := convo.NewClient(convo.WithAPIKey(key), convo.WithBaseURL("https://api.example.test/v1"),
		convo.WithHTTPClient(&http.Client{Transport: mock}), convo.WithMaxRetries(0),
		convo.WithLogger(slog.New(slog.NewTextHandler(&log, &slog.HandlerOptions{Level: slog.LevelDebug}))))
	require.NoError(t, err)
	_, err = c.Channels.List(context.Background())
	var apiErr *convo.Error
	require.ErrorAs(t, err, &apiErr)
	require.LessOrEqual(t, len(apiErr.Body), 512+len("..."))
	return []string{err.Error(), fmt.Sprintf("%#v", err), log.String(), string(apiErr.Body)}
}

// assertNoRun fails when any run of six characters of key shows in seen,
// as is, or escaped by e1, or by e1 then e2.
func assertNoRun(t *testing.T, key string, seen []string, e1, e2 func(string) string) {
	t.Helper()
	runes := []rune(key)
	for i := 0; i+6 <= len(runes); i++ {
		run := string(runes[i : i+6])
		for _, form := range []string{run, e1(run), e2(e1(run))} {
			for _, s := range seen {
				if strings.Contains(s, form) {
					t.Fatalf("six characters of the key (%q) show as %q in %q", run, form, s)
				}
			}
		}
	}
}
