// Package conformancetest is test support for the conformance suite: a
// proxy that alters one thing at a time in a server's answers or
// acceptance, the table of alterations the suite must report, and a client
// session that reads every endpoint, to record.
package conformancetest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"
	"time"

	"github.com/convoapi/convo-go"
	"github.com/convoapi/convo-go/internal/testkit"
	"github.com/stretchr/testify/require"
)

// Alteration changes one thing in a server's acceptance (Req) or answers
// (Resp, on JSON answers, with the status it may change).
type Alteration struct {
	// Name says what is altered.
	Name string
	// Want is the check that must fail; "stopped" for a run that must stop.
	Want string
	// Req changes a request before the server sees it.
	Req func(r *http.Request)
	// Resp changes a JSON answer (and its status) before the client sees it.
	Resp func(r *http.Request, status *int, body map[string]any)
	// Header changes the headers of every answer.
	Header func(h http.Header)
}

// Proxy serves h on a loopback listener, applying alt to each request and
// answer; alt may be zero (a faithful proxy). It closes with the test.
func Proxy(t testing.TB, h http.Handler, alt Alteration) *httptest.Server {
	t.Helper()
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if alt.Req != nil {
			alt.Req(r)
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, r)
		status, body := rec.Code, rec.Body.Bytes()
		if alt.Resp != nil && json.Valid(body) {
			dec := json.NewDecoder(bytes.NewReader(body))
			dec.UseNumber()
			var m map[string]any
			if dec.Decode(&m) == nil {
				alt.Resp(r, &status, m)
				var b bytes.Buffer
				enc := json.NewEncoder(&b)
				enc.SetEscapeHTML(false)
				require.NoError(t, enc.Encode(m))
				body = b.Bytes()
			}
		}
		maps.Copy(w.Header(), rec.Header())
		if alt.Header != nil {
			alt.Header(w.Header())
		}
		w.Header().Set("Content-Length", strconv.Itoa(len(body)))
		w.WriteHeader(status)
		_, _ = w.Write(body)
	}))
	t.Cleanup(ts.Close)
	return ts
}

// JSON navigation for the alterations.

func data(body map[string]any) map[string]any { d, _ := body["data"].(map[string]any); return d }

func items(body map[string]any) []any { a, _ := data(body)["items"].([]any); return a }

func eachItem(body map[string]any, fn func(m map[string]any)) {
	for _, v := range items(body) {
		if m, ok := v.(map[string]any); ok {
			fn(m)
		}
	}
}

func errMessage(body map[string]any) map[string]any {
	m, _ := body["message"].(map[string]any)
	return m
}

func reverse(a []any) {
	for i, j := 0, len(a)-1; i < j; i, j = i+1, j-1 {
		a[i], a[j] = a[j], a[i]
	}
}

// EchoKeyHeaders sets rate-limit headers that hold key, as is and escaped.
func EchoKeyHeaders(key string) func(http.Header) {
	return func(h http.Header) {
		h.Set("X-RateLimit-Key", key)
		h.Set("RateLimit-Policy", testkit.Escapings["url query"](key))
	}
}

// EchoKey adds key, in every escaping, to each JSON answer, and to the
// text of each error.
func EchoKey(key string) func(*http.Request, *int, map[string]any) {
	return func(_ *http.Request, _ *int, b map[string]any) {
		for name, esc := range testkit.Escapings {
			b["echo "+name] = esc(key)
		}
		if m := errMessage(b); m != nil {
			m["message"] = fmt.Sprint(m["message"], " key=", key)
		}
	}
}

// RecordEverything reads every endpoint through client, paging through
// everything (messages since a year before since), and provokes one error.
func RecordEverything(t testing.TB, client *convo.Client, since time.Time) {
	ctx := t.Context()
	accounts, err := client.Channels.List(ctx)
	require.NoError(t, err)
	pnid := map[string]string{}
	for _, a := range accounts {
		pnid[a.ID] = a.ProviderIdentifier
	}
	_, err = client.Conversations.List(ctx, nil)
	require.NoError(t, err)
	for cv, err := range client.Conversations.All(ctx, &convo.ListConversationsParams{Status: convo.ConversationAll, Limit: 4}) {
		require.NoError(t, err)
		for m, err := range client.Messages.All(ctx, cv.ID, &convo.ListMessagesParams{Since: since.AddDate(-1, 0, 0), Limit: 3}) {
			require.NoError(t, err)
			if m.Media != nil && m.Media.Available() {
				_, err := client.Attachments.Get(ctx, m.Media.MediaID)
				require.NoError(t, err)
			}
		}
		if cv.Channel == convo.ChannelChatapp {
			_, err := client.Contacts.Lookup(ctx, &convo.LookupContactParams{PhoneNumberID: pnid[cv.ChannelAccountID], PhoneNumber: cv.ChannelIdentifier})
			require.NoError(t, err)
		}
	}
	_, err = client.Anomalies.Get(ctx, &convo.AnomaliesParams{Include: []convo.Bucket{convo.BucketUnassigned, convo.BucketAutomationOnly}})
	require.NoError(t, err)
	_, err = client.Messages.List(ctx, "00000000-0000-4000-8000-000000000000", nil)
	require.ErrorIs(t, err, convo.ErrConversationNotFound)
}

// RecordPartial reads what a user checking one conversation reads: the
// channel list, every conversation (their list only), the messages of the
// first conversation that has any in the default window (no since, so the
// window is computed from the server's now) and the anomaly report.
func RecordPartial(t testing.TB, client *convo.Client) {
	ctx := t.Context()
	_, err := client.Channels.List(ctx)
	require.NoError(t, err)
	read := false
	for cv, err := range client.Conversations.All(ctx, &convo.ListConversationsParams{Status: convo.ConversationAll, Limit: 4}) {
		require.NoError(t, err)
		if read || cv.LastMessageAt == nil {
			continue
		}
		page, err := client.Messages.List(ctx, cv.ID, nil)
		require.NoError(t, err)
		read = len(page.Items) > 0
	}
	require.True(t, read, "no conversation has messages in the default window")
	_, err = client.Anomalies.Get(ctx, nil)
	require.NoError(t, err)
}
