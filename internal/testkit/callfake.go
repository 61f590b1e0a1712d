// This file (formerly package callfake) is the client side of the tests that drive a running
// convofake: cmd/convofake's, which run it in the test's own process, and
// internal/wiretest's, which run its binary as a user does. A request is
// sent and its answer read whole; the admin reads and the start lines that
// both kinds of test need are here once.

package testkit

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// Answer is an HTTP answer read whole.
type Answer struct {
	Status int
	Header http.Header
	Body   []byte
}

// JSON decodes the body as a JSON object; a body that is not one fails the
// test.
func (a Answer) JSON(t testing.TB) map[string]any {
	t.Helper()
	var m map[string]any
	require.NoError(t, json.Unmarshal(a.Body, &m), "body: %s", a.Body)
	return m
}

// Do sends req with c and reads the answer whole; an error of the
// transport fails the test.
func Do(t testing.TB, c *http.Client, req *http.Request) Answer {
	t.Helper()
	resp, err := c.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return Answer{Status: resp.StatusCode, Header: resp.Header, Body: b}
}

// Send is Do of a new request: auth is the whole Authorization value (""
// for none), a body is sent as application/json, and headers are name,
// value pairs set after those.
func Send(t testing.TB, c *http.Client, method, url, auth, body string, headers ...string) Answer {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, url, rd)
	require.NoError(t, err)
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	return Do(t, c, req)
}

// Admin calls convofake's admin API with the admin token.
type Admin func(method, path, body string) Answer

// ConversationOf returns the id of the default company's conversation
// whose contact has that name; there being none fails the test.
func ConversationOf(t testing.TB, admin Admin, name string) string {
	t.Helper()
	var inbox struct {
		Items []struct {
			ID          string `json:"id"`
			ContactName string `json:"contact_name"`
		} `json:"items"`
	}
	r := admin(http.MethodGet, "/_fake/state/conversations", "")
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	require.NoError(t, json.Unmarshal(r.Body, &inbox))
	for _, it := range inbox.Items {
		if it.ContactName == name {
			return it.ID
		}
	}
	t.Fatalf("no conversation of %s", name)
	return ""
}

// InboxItems reads GET /_fake/state/conversations with the query (""
// or "?..."): the items by "contact name/status".
func InboxItems(t testing.TB, admin Admin, query string) map[string]map[string]any {
	t.Helper()
	r := admin(http.MethodGet, "/_fake/state/conversations"+query, "")
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	out := map[string]map[string]any{}
	for _, it := range r.JSON(t)["items"].([]any) {
		m := it.(map[string]any)
		out[m["contact_name"].(string)+"/"+m["status"].(string)] = m
	}
	return out
}

// UnansweredCount reads GET /v1/conversations/anomalies with the API key
// through api: data.buckets.unanswered.count.
func UnansweredCount(t testing.TB, api func(path, key string) Answer, key string) float64 {
	t.Helper()
	r := api("/v1/conversations/anomalies", key)
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	return r.JSON(t)["data"].(map[string]any)["buckets"].(map[string]any)["unanswered"].(map[string]any)["count"].(float64)
}

// Printed returns the NAME=value lines of what convofake printed on stdout
// at start (comment lines left out).
func Printed(stdout string) map[string]string {
	out := map[string]string{}
	sc := bufio.NewScanner(strings.NewReader(stdout))
	for sc.Scan() {
		if k, v, ok := strings.Cut(sc.Text(), "="); ok && !strings.HasPrefix(k, "#") {
			out[k] = v
		}
	}
	return out
}
