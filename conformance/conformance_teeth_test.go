package conformance_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/convoapi/convo-go/conformance"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func isPath(r *http.Request, suffix string) bool { return strings.HasSuffix(r.URL.Path, suffix) }

func isMessages(r *http.Request) bool {
	return strings.Contains(r.URL.Path, "/conversations/") && isPath(r, "/messages")
}

func setQuery(r *http.Request, name, value string) {
	q := r.URL.Query()
	q.Set(name, value)
	r.URL.RawQuery = q.Encode()
}

// alterations are the server faults the suite must report, each with the
// check that reports it.
var alterations = []alteration{
	{name: "a timestamp without milliseconds", want: "channels/list",
		resp: func(r *http.Request, _ *int, b map[string]any) {
			if isPath(r, "/channels") {
				b["timestamp"] = "2026-11-26T10:00:00Z"
			}
		}},
	{name: "a wrong error code", want: "messages/unknown-conversation",
		resp: func(_ *http.Request, _ *int, b map[string]any) {
			if m := errMessage(b); m != nil && m["error"] == "CONVERSATION_NOT_FOUND" {
				m["error"] = "NOT_FOUND"
			}
		}},
	{name: "a changed 401 text", want: "auth/missing-key",
		resp: func(_ *http.Request, _ *int, b map[string]any) {
			if m := errMessage(b); m != nil && m["error"] == "UNAUTHORIZED" {
				m["message"] = "Unauthorized."
			}
		}},
	{name: "the conversation list in reverse order", want: "conversations/order",
		resp: func(r *http.Request, _ *int, b map[string]any) {
			if isPath(r, "/conversations") {
				reverse(items(b))
			}
		}},
	{name: "messages oldest first", want: "messages/order",
		resp: func(r *http.Request, _ *int, b map[string]any) {
			if isMessages(r) {
				reverse(items(b))
			}
		}},
	{name: "a repeating cursor", want: "conversations/paging",
		resp: func(r *http.Request, _ *int, b map[string]any) {
			if c := r.URL.Query().Get("cursor"); c != "" && isPath(r, "/conversations") && data(b) != nil {
				data(b)["next_cursor"] = c
			}
		}},
	{name: "limit over 100 not refused", want: "conversations/limit-bounds",
		req: func(r *http.Request) {
			if isPath(r, "/conversations") && r.URL.Query().Get("limit") == "101" {
				setQuery(r, "limit", "100")
			}
		}},
	{name: "a key accepted in the query", want: "auth/key-in-query",
		req: func(r *http.Request) {
			if k := r.URL.Query().Get("api_key"); k != "" && r.Header.Get("Authorization") == "" {
				r.Header.Set("Authorization", "Bearer "+k)
			}
		}},
	{name: "unread_count as a string", want: "conversations/items",
		resp: func(r *http.Request, _ *int, b map[string]any) {
			eachItem(b, func(m map[string]any) {
				if _, ok := m["unread_count"]; ok && isPath(r, "/conversations") {
					m["unread_count"] = "0"
				}
			})
		}},
	{name: "a missing capability field", want: "channels/list",
		resp: func(r *http.Request, _ *int, b map[string]any) {
			eachItem(b, func(m map[string]any) {
				if c, ok := m["capabilities"].(map[string]any); ok {
					delete(c, "max_text_length")
				}
			})
		}},
	{name: "a list where only a count is allowed (never_engaged)", want: "anomalies/report",
		resp: func(r *http.Request, _ *int, b map[string]any) {
			if bk, ok := data(b)["buckets"].(map[string]any); ok {
				if ne, ok := bk["never_engaged"].(map[string]any); ok {
					ne["items"] = []any{}
				}
			}
		}},
	{name: "statusCode differing from the HTTP status", want: "messages/unknown-conversation",
		resp: func(_ *http.Request, _ *int, b map[string]any) {
			if _, ok := b["statusCode"]; ok {
				b["statusCode"] = json.Number("500")
			}
		}},
	{name: "an error path in its /v1 form", want: "auth/missing-key",
		resp: func(_ *http.Request, _ *int, b map[string]any) {
			if p, ok := b["path"].(string); ok {
				b["path"] = strings.Replace(p, "/api/v1", "/v1", 1)
			}
		}},
	{name: "a media_id on media of unknown status", want: "messages/media",
		resp: func(r *http.Request, _ *int, b map[string]any) {
			eachItem(b, func(m map[string]any) {
				if md, ok := m["media"].(map[string]any); ok && md["media_status"] == "unknown" {
					md["media_id"] = "m-123"
				}
			})
		}},
	{name: "a system message with text", want: "messages/system",
		resp: func(r *http.Request, _ *int, b map[string]any) {
			eachItem(b, func(m map[string]any) {
				if m["type"] == "system" {
					m["text"] = "Conversation assigned"
				}
			})
		}},
	{name: "a window of 31 days", want: "messages/window",
		resp: func(r *http.Request, _ *int, b map[string]any) {
			if w, ok := data(b)["window"].(map[string]any); ok && isMessages(r) {
				w["recent_window_days"] = json.Number("31")
			}
		}},
	{name: "the status filter ignored", want: "conversations/filter-status",
		req: func(r *http.Request) {
			if isPath(r, "/conversations") && r.URL.Query().Get("status") == "resolved" {
				setQuery(r, "status", "all")
			}
		}},
	{name: "the x-api-key form refused", want: "auth/key-forms",
		req: func(r *http.Request) { r.Header.Del("X-Api-Key") }},
	{name: "INVALID_BUCKET without details.opt_in", want: "anomalies/unknown-bucket",
		resp: func(_ *http.Request, _ *int, b map[string]any) {
			if d, ok := errMessage(b)["details"].(map[string]any); ok {
				delete(d, "opt_in")
			}
		}},
	{name: "threshold_hours 25 accepted", want: "anomalies/threshold-bounds",
		req: func(r *http.Request) {
			if r.URL.Query().Get("threshold_hours") == "25" {
				setQuery(r, "threshold_hours", "24")
			}
		}},
	{name: "anomaly items best first", want: "anomalies/order",
		resp: func(_ *http.Request, _ *int, b map[string]any) {
			if bk, ok := data(b)["buckets"].(map[string]any); ok {
				if u, ok := bk["unanswered"].(map[string]any); ok {
					a, _ := u["items"].([]any)
					reverse(a)
				}
			}
		}},
	{name: "an errorId of another form", want: "auth/wrong-key",
		resp: func(_ *http.Request, _ *int, b map[string]any) {
			if _, ok := b["errorId"]; ok {
				b["errorId"] = "12345"
			}
		}},
	{name: "a URL in a media block", want: "messages/media",
		resp: func(r *http.Request, _ *int, b map[string]any) {
			eachItem(b, func(m map[string]any) {
				if md, ok := m["media"].(map[string]any); ok {
					md["url"] = "https://files.example.com/x.png"
				}
			})
		}},
	{name: "a relative attachment url", want: "attachments/get",
		resp: func(r *http.Request, _ *int, b map[string]any) {
			if d := data(b); d != nil && strings.Contains(r.URL.Path, "/attachments/") {
				d["url"] = "/_files/abc"
			}
		}},
	{name: "an unknown path answered 200", want: "errors/unknown-path",
		resp: func(r *http.Request, status *int, b map[string]any) {
			if isPath(r, "/convocheck-no-such-path") {
				*status = http.StatusOK
			}
		}},
	{name: "a reaction without emoji", want: "messages/reactions",
		resp: func(r *http.Request, _ *int, b map[string]any) {
			eachItem(b, func(m map[string]any) {
				rs, _ := m["reactions"].([]any)
				for _, v := range rs {
					delete(v.(map[string]any), "emoji")
				}
			})
		}},
	{name: "a count in a message read", want: "messages/no-count",
		resp: func(r *http.Request, _ *int, b map[string]any) {
			if isMessages(r) && data(b) != nil {
				data(b)["total_count"] = json.Number("3")
			}
		}},
	{name: "a lookup without phone answered 404", want: "contacts/lookup-missing-phone",
		resp: func(r *http.Request, status *int, b map[string]any) {
			if m := errMessage(b); m != nil && m["error"] == "MISSING_PARAM" {
				m["error"], b["statusCode"], *status = "CONTACT_NOT_FOUND", json.Number("404"), http.StatusNotFound
			}
		}},
	{name: "an inbound message with a delivery status", want: "messages/enums",
		resp: func(r *http.Request, _ *int, b map[string]any) {
			eachItem(b, func(m map[string]any) {
				if m["direction"] == "inbound" {
					m["status"] = "delivered"
				}
			})
		}},
	{name: "since exclusive on the conversation list", want: "conversations/filter-dates",
		req: func(r *http.Request) {
			if s := r.URL.Query().Get("since"); s != "" && isPath(r, "/conversations") {
				if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
					setQuery(r, "since", t.Add(time.Millisecond).Format("2006-01-02T15:04:05.000Z"))
				}
			}
		}},
	{name: "since ignored on a message read", want: "messages/since",
		req: func(r *http.Request) {
			if isMessages(r) && r.URL.Query().Get("since") != "" {
				q := r.URL.Query()
				q.Del("since")
				r.URL.RawQuery = q.Encode()
			}
		}},
	{name: "a chatapp ceiling of 48 hours", want: "anomalies/report",
		resp: func(r *http.Request, _ *int, b map[string]any) {
			if w, ok := data(b)["window"].(map[string]any); ok {
				if c, ok := w["ceiling_hours_by_channel"].(map[string]any); ok {
					c["chatapp"] = json.Number("48")
				}
			}
		}},
	{name: "waiting_hours an hour off", want: "anomalies/items",
		resp: func(r *http.Request, _ *int, b map[string]any) {
			if bk, ok := data(b)["buckets"].(map[string]any); ok {
				if u, ok := bk["unanswered"].(map[string]any); ok {
					for _, v := range u["items"].([]any) {
						m := v.(map[string]any)
						w, _ := m["waiting_hours"].(json.Number).Float64()
						m["waiting_hours"] = w + 1
					}
				}
			}
		}},
	{name: "a wrong file_size on the attachment", want: "attachments/get",
		resp: func(r *http.Request, _ *int, b map[string]any) {
			if d := data(b); d != nil && strings.Contains(r.URL.Path, "/attachments/") {
				d["file_size"] = json.Number("1")
			}
		}},
	{name: "success false on a 200", want: "channels/list",
		resp: func(r *http.Request, _ *int, b map[string]any) {
			if isPath(r, "/channels") {
				b["success"] = false
			}
		}},
	{name: "a page over the default size", want: "conversations/defaults",
		req: func(r *http.Request) {
			if isPath(r, "/conversations") && r.URL.RawQuery == "" {
				setQuery(r, "status", "all")
			}
		}},
	{name: "a 429 on the conversation list", want: "stopped",
		resp: func(r *http.Request, status *int, b map[string]any) {
			if isPath(r, "/conversations") {
				*status = http.StatusTooManyRequests
			}
		}},
}

// TestRunHasTeeth alters one thing at a time in the fake's answers or
// acceptance, through a proxy, and checks that the suite reports each.
func TestRunHasTeeth(t *testing.T) {
	require.GreaterOrEqual(t, len(alterations), 20)
	caught := 0
	for _, alt := range alterations {
		t.Run(alt.name, func(t *testing.T) {
			s := demoHandler(t)
			ts := alteringProxy(t, s.Handler(), alt)
			rep, err := conformance.Run(t.Context(), conformance.Config{BaseURL: ts.URL + "/v1", APIKey: s.APIKey(), Anomalies: true, Pace: -1})
			require.NoError(t, err)
			if alt.want == "stopped" {
				if assert.NotEmpty(t, rep.Stopped) && assert.Equal(t, 2, rep.ExitCode()) {
					caught++
				}
				return
			}
			res, ok := rep.Result(alt.want)
			require.True(t, ok, "no check %s", alt.want)
			if assert.Equal(t, conformance.Fail, res.Status, "%s: %s", alt.want, res.Reason) {
				caught++
				assert.Equal(t, 1, rep.ExitCode())
				t.Logf("%s: %s", alt.want, res.Reason)
			}
		})
	}
	t.Logf("score: %d of %d alterations reported", caught, len(alterations))
}

// TestRunThroughAFaithfulProxy is the control of TestRunHasTeeth: the same
// proxy, altering nothing, lets every check pass or skip.
func TestRunThroughAFaithfulProxy(t *testing.T) {
	s := demoHandler(t)
	ts := alteringProxy(t, s.Handler(), alteration{})
	rep, err := conformance.Run(t.Context(), conformance.Config{BaseURL: ts.URL + "/v1", APIKey: s.APIKey(), Anomalies: true, Pace: -1})
	require.NoError(t, err)
	assert.Zero(t, rep.Failed, "%+v", rep.Results)
	assert.Equal(t, 0, rep.ExitCode())
}
