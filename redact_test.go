package convo_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/jarcoal/httpmock"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	convo "github.com/convoapi/convo-go"
)

// keyEchoes are the forms in which a server or proxy may echo a key back.
func keyEchoes(key string) map[string]string {
	j, _ := json.Marshal(key)
	return map[string]string{
		"raw":   key,
		"json":  string(j[1 : len(j)-1]),
		"query": url.QueryEscape(key),
		"path":  url.PathEscape(key),
		"lower": strings.ToLower(url.QueryEscape(key)), // %3c as some servers write it (the key is lower-case)
		"html":  html.EscapeString(key),
	}
}

// errorStrings is every string an error shows: its texts in every verb, and
// each field of *Error and *TransportError.
func errorStrings(err error) []string {
	out := []string{err.Error(), fmt.Sprintf("%v", err), fmt.Sprintf("%+v", err), fmt.Sprintf("%#v", err), fmt.Sprintf("%s", err), fmt.Sprintf("%q", err)}
	var e *convo.Error
	if errors.As(err, &e) {
		out = append(out, string(e.Code), e.Message, string(e.Details), e.ErrorID, e.Path, e.Method, string(e.Body), fmt.Sprint(e.Header))
	}
	var te *convo.TransportError
	if errors.As(err, &te) {
		out = append(out, te.Method, te.Path, fmt.Sprintf("%#v", te))
	}
	return out
}

// A server echoing the key, as is and escaped, into every field of its
// answer leaks it in none of the calls, for a long key with characters that
// escape and for a short one.
func TestKeyNeverLeaksThroughAnyErrorField(t *testing.T) {
	leaks, calls := 0, 0
	for _, key := range []string{`sk_live_<a&b>"c'd/e+f g`, "sk_test_4f9c2a7e1b", "k1z"} {
		// call makes one call through a client with key whose transport
		// answers with reply, and counts each form of the key it leaks.
		call := func(what string, reply httpmock.Responder, do func(*convo.Client) error) {
			mock := httpmock.NewMockTransport()
			mock.RegisterNoResponder(reply)
			c, err := convo.NewClient(convo.WithAPIKey(key), convo.WithBaseURL(testBase),
				convo.WithHTTPClient(&http.Client{Transport: mock}), convo.WithMaxRetries(0))
			require.NoError(t, err)
			err = do(c)
			require.Error(t, err)
			calls++
			for _, s := range errorStrings(err) {
				for _, f := range keyEchoes(key) {
					if leaked(s, f, key) {
						leaks++
						t.Errorf("key %q (%s) leaked as %q in %q", key, what, f, s)
					}
				}
			}
		}
		list := func(c *convo.Client) error { _, err := c.Channels.List(context.Background()); return err }
		for formName, form := range keyEchoes(key) {
			bodies := map[string]string{
				"envelope": fmt.Sprintf(`{"success":false,"statusCode":400,"timestamp":"2026-11-22T10:04:05.123Z","path":"/api/v1/x/%[1]s","method":"GET %[1]s",`+
					`"message":{"error":"INVALID_PARAM %[1]s","message":"bad key %[1]s","details":{"key":"%[1]s","k %[1]s":[%[2]q]}},"errorId":"ERR-%[1]s"}`,
					jsonSafe(form), form),
				"html page":  "<html><body>key=" + form + " (" + form + ")</body></html>",
				"long page":  strings.Repeat("x", 505) + form + strings.Repeat("y", 100),
				"2xx broken": `{"succes":"` + form + `"}`,
			}
			for bodyName, body := range bodies {
				status := 400
				if bodyName == "2xx broken" {
					status = 200
				}
				reply := httpmock.NewStringResponder(status, body).HeaderSet(http.Header{"Content-Type": {"application/json"}, "X-Echo": {form}})
				call(formName+" form, "+bodyName+" body", reply, list)
			}
		}
		call("a transport error", httpmock.NewErrorResponder(errors.New("proxy refused key "+key+" / "+url.QueryEscape(key))),
			func(c *convo.Client) error {
				return c.Do(context.Background(), "GET", "/x/"+url.PathEscape(key), nil, nil, nil)
			})
	}
	assert.Zero(t, leaks, "leaks in %d calls", calls)
}

// leaked reports whether s shows form f of key. A short key counts only as
// a whole token (it is redacted only there: see WithAPIKey).
func leaked(s, f, key string) bool {
	if len(key) >= 8 {
		return strings.Contains(s, f)
	}
	for i := 0; ; {
		j := strings.Index(s[i:], f)
		if j < 0 {
			return false
		}
		j += i
		end := j + len(f)
		if (j == 0 || !isAlnum(s[j-1])) && (end == len(s) || !isAlnum(s[end])) {
			return true
		}
		i = j + 1
	}
}

func isAlnum(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}

// jsonSafe escapes s for a JSON string (no surrounding quotes).
func jsonSafe(s string) string {
	b, _ := json.Marshal(s)
	return string(b[1 : len(b)-1])
}

// A short key is redacted where it stands alone but does not garble words
// that merely contain it.
func TestShortKeyRedactedAsAWholeToken(t *testing.T) {
	c, _ := newMock(t, jsonResp(404, `{"success":false,"statusCode":404,"path":"/api/v1/channels","method":"GET","message":{"error":"CONTACT_NOT_FOUND","message":"key O is unknown"},"errorId":"ERR-1"}`), convo.WithAPIKey("O"))
	_, err := c.Channels.List(context.Background())
	require.Error(t, err)
	assert.Equal(t, "convo: 404 CONTACT_NOT_FOUND: key [REDACTED] is unknown (GET /api/v1/channels, errorId ERR-1, 1 attempt)", err.Error())
}
