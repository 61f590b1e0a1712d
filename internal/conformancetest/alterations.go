package conformancetest

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"time"
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

// Alterations are the server faults the suite must report, each with the
// check that reports it.
var Alterations = []Alteration{
	{Name: "a timestamp without milliseconds", Want: "format/timestamps",
		Resp: func(r *http.Request, _ *int, b map[string]any) {
			if isPath(r, "/channels") {
				b["timestamp"] = "2026-11-26T10:00:00Z"
			}
		}},
	{Name: "a wrong error code", Want: "messages/unknown-conversation",
		Resp: func(_ *http.Request, _ *int, b map[string]any) {
			if m := errMessage(b); m != nil && m["error"] == "CONVERSATION_NOT_FOUND" {
				m["error"] = "NOT_FOUND"
			}
		}},
	{Name: "a changed 401 text", Want: "auth/missing-key",
		Resp: func(_ *http.Request, _ *int, b map[string]any) {
			if m := errMessage(b); m != nil && m["error"] == "UNAUTHORIZED" {
				m["message"] = "Unauthorized."
			}
		}},
	{Name: "the conversation list in reverse order", Want: "conversations/order",
		Resp: func(r *http.Request, _ *int, b map[string]any) {
			if isPath(r, "/conversations") {
				reverse(items(b))
			}
		}},
	{Name: "messages oldest first", Want: "messages/order",
		Resp: func(r *http.Request, _ *int, b map[string]any) {
			if isMessages(r) {
				reverse(items(b))
			}
		}},
	{Name: "a repeating cursor", Want: "conversations/paging",
		Resp: func(r *http.Request, _ *int, b map[string]any) {
			if c := r.URL.Query().Get("cursor"); c != "" && isPath(r, "/conversations") && data(b) != nil {
				data(b)["next_cursor"] = c
			}
		}},
	{Name: "limit over 100 not refused", Want: "conversations/limit-bounds",
		Req: func(r *http.Request) {
			if isPath(r, "/conversations") && r.URL.Query().Get("limit") == "101" {
				setQuery(r, "limit", "100")
			}
		}},
	{Name: "a key accepted in the query", Want: "auth/key-in-query",
		Req: func(r *http.Request) {
			if k := r.URL.Query().Get("api_key"); k != "" && r.Header.Get("Authorization") == "" {
				r.Header.Set("Authorization", "Bearer "+k)
			}
		}},
	{Name: "unread_count as a string", Want: "conversations/items",
		Resp: func(r *http.Request, _ *int, b map[string]any) {
			eachItem(b, func(m map[string]any) {
				if _, ok := m["unread_count"]; ok && isPath(r, "/conversations") {
					m["unread_count"] = "0"
				}
			})
		}},
	{Name: "a missing capability field", Want: "channels/list",
		Resp: func(r *http.Request, _ *int, b map[string]any) {
			eachItem(b, func(m map[string]any) {
				if c, ok := m["capabilities"].(map[string]any); ok {
					delete(c, "max_text_length")
				}
			})
		}},
	{Name: "a list where only a count is allowed (never_engaged)", Want: "anomalies/report",
		Resp: func(r *http.Request, _ *int, b map[string]any) {
			if bk, ok := data(b)["buckets"].(map[string]any); ok {
				if ne, ok := bk["never_engaged"].(map[string]any); ok {
					ne["items"] = []any{}
				}
			}
		}},
	{Name: "statusCode differing from the HTTP status", Want: "messages/unknown-conversation",
		Resp: func(_ *http.Request, _ *int, b map[string]any) {
			if _, ok := b["statusCode"]; ok {
				b["statusCode"] = json.Number("500")
			}
		}},
	{Name: "an error path in its /v1 form", Want: "auth/missing-key",
		Resp: func(_ *http.Request, _ *int, b map[string]any) {
			if p, ok := b["path"].(string); ok {
				b["path"] = strings.Replace(p, "/api/v1", "/v1", 1)
			}
		}},
	{Name: "a media_id on media of unknown status", Want: "messages/media",
		Resp: func(r *http.Request, _ *int, b map[string]any) {
			eachItem(b, func(m map[string]any) {
				if md, ok := m["media"].(map[string]any); ok && md["media_status"] == "unknown" {
					md["media_id"] = "m-123"
				}
			})
		}},
	{Name: "a system message with text", Want: "messages/system",
		Resp: func(r *http.Request, _ *int, b map[string]any) {
			eachItem(b, func(m map[string]any) {
				if m["type"] == "system" {
					m["text"] = "Conversation assigned"
				}
			})
		}},
	{Name: "a window of 31 days", Want: "messages/window",
		Resp: func(r *http.Request, _ *int, b map[string]any) {
			if w, ok := data(b)["window"].(map[string]any); ok && isMessages(r) {
				w["recent_window_days"] = json.Number("31")
			}
		}},
	{Name: "the status filter ignored", Want: "conversations/filter-status",
		Req: func(r *http.Request) {
			if isPath(r, "/conversations") && r.URL.Query().Get("status") == "resolved" {
				setQuery(r, "status", "all")
			}
		}},
	{Name: "the x-api-key form refused", Want: "auth/key-forms",
		Req: func(r *http.Request) { r.Header.Del("X-Api-Key") }},
	{Name: "INVALID_BUCKET without details.opt_in", Want: "anomalies/unknown-bucket",
		Resp: func(_ *http.Request, _ *int, b map[string]any) {
			if d, ok := errMessage(b)["details"].(map[string]any); ok {
				delete(d, "opt_in")
			}
		}},
	{Name: "threshold_hours 25 accepted", Want: "anomalies/threshold-bounds",
		Req: func(r *http.Request) {
			if r.URL.Query().Get("threshold_hours") == "25" {
				setQuery(r, "threshold_hours", "24")
			}
		}},
	{Name: "anomaly items best first", Want: "anomalies/order",
		Resp: func(_ *http.Request, _ *int, b map[string]any) {
			if bk, ok := data(b)["buckets"].(map[string]any); ok {
				if u, ok := bk["unanswered"].(map[string]any); ok {
					a, _ := u["items"].([]any)
					reverse(a)
				}
			}
		}},
	{Name: "an errorId of another form", Want: "auth/wrong-key",
		Resp: func(_ *http.Request, _ *int, b map[string]any) {
			if _, ok := b["errorId"]; ok {
				b["errorId"] = "12345"
			}
		}},
	{Name: "a URL in a media block", Want: "messages/media",
		Resp: func(r *http.Request, _ *int, b map[string]any) {
			eachItem(b, func(m map[string]any) {
				if md, ok := m["media"].(map[string]any); ok {
					md["url"] = "https://files.example.com/x.png"
				}
			})
		}},
	{Name: "a relative attachment url", Want: "attachments/get",
		Resp: func(r *http.Request, _ *int, b map[string]any) {
			if d := data(b); d != nil && strings.Contains(r.URL.Path, "/attachments/") {
				d["url"] = "/_files/abc"
			}
		}},
	{Name: "an unknown path answered 200", Want: "errors/unknown-path",
		Resp: func(r *http.Request, status *int, b map[string]any) {
			if isPath(r, "/convocheck-no-such-path") {
				*status = http.StatusOK
			}
		}},
	{Name: "a reaction without emoji", Want: "messages/reactions",
		Resp: func(r *http.Request, _ *int, b map[string]any) {
			eachItem(b, func(m map[string]any) {
				rs, _ := m["reactions"].([]any)
				for _, v := range rs {
					delete(v.(map[string]any), "emoji")
				}
			})
		}},
	{Name: "a count in a message read", Want: "messages/no-count",
		Resp: func(r *http.Request, _ *int, b map[string]any) {
			if isMessages(r) && data(b) != nil {
				data(b)["total_count"] = json.Number("3")
			}
		}},
	{Name: "a lookup without phone answered 404", Want: "contacts/lookup-missing-phone",
		Resp: func(r *http.Request, status *int, b map[string]any) {
			if m := errMessage(b); m != nil && m["error"] == "MISSING_PARAM" {
				m["error"], b["statusCode"], *status = "CONTACT_NOT_FOUND", json.Number("404"), http.StatusNotFound
			}
		}},
	{Name: "an inbound message with a delivery status", Want: "messages/enums",
		Resp: func(r *http.Request, _ *int, b map[string]any) {
			eachItem(b, func(m map[string]any) {
				if m["direction"] == "inbound" {
					m["status"] = "delivered"
				}
			})
		}},
	{Name: "since exclusive on the conversation list", Want: "conversations/filter-dates",
		Req: func(r *http.Request) {
			if s := r.URL.Query().Get("since"); s != "" && isPath(r, "/conversations") {
				if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
					setQuery(r, "since", t.Add(time.Millisecond).Format("2006-01-02T15:04:05.000Z"))
				}
			}
		}},
	{Name: "since ignored on a message read", Want: "messages/since",
		Req: func(r *http.Request) {
			if isMessages(r) && r.URL.Query().Get("since") != "" {
				q := r.URL.Query()
				q.Del("since")
				r.URL.RawQuery = q.Encode()
			}
		}},
	{Name: "a chatapp ceiling of 48 hours", Want: "anomalies/report",
		Resp: func(r *http.Request, _ *int, b map[string]any) {
			if w, ok := data(b)["window"].(map[string]any); ok {
				if c, ok := w["ceiling_hours_by_channel"].(map[string]any); ok {
					c["chatapp"] = json.Number("48")
				}
			}
		}},
	{Name: "waiting_hours an hour off", Want: "anomalies/items",
		Resp: func(r *http.Request, _ *int, b map[string]any) {
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
	{Name: "a wrong file_size on the attachment", Want: "attachments/get",
		Resp: func(r *http.Request, _ *int, b map[string]any) {
			if d := data(b); d != nil && strings.Contains(r.URL.Path, "/attachments/") {
				d["file_size"] = json.Number("1")
			}
		}},
	{Name: "success false on a 200", Want: "channels/list",
		Resp: func(r *http.Request, _ *int, b map[string]any) {
			if isPath(r, "/channels") {
				b["success"] = false
			}
		}},
	{Name: "a page over the default size", Want: "conversations/defaults",
		Req: func(r *http.Request) {
			if isPath(r, "/conversations") && r.URL.RawQuery == "" {
				setQuery(r, "status", "all")
			}
		}},
	{Name: "a conversation on an account the channel list does not hold", Want: "conversations/accounts",
		Resp: func(r *http.Request, _ *int, b map[string]any) {
			if isPath(r, "/conversations") {
				eachItem(b, func(m map[string]any) {
					if m["channel"] == "chatapp" {
						m["channel_account_id"] = "0b6f2c1e-1111-4a5b-9c3d-000000000001"
					}
				})
			}
		}},
	{Name: "a botapp ceiling of 48 hours, though botapp has no service window", Want: "anomalies/report",
		Resp: func(r *http.Request, _ *int, b map[string]any) {
			if w, ok := data(b)["window"].(map[string]any); ok {
				if c, ok := w["ceiling_hours_by_channel"].(map[string]any); ok {
					c["botapp"] = json.Number("48")
				}
			}
		}},
	{Name: "an unknown phone_number_id ignored by lookup", Want: "contacts/lookup-unknown-number",
		Req: func(r *http.Request) {
			if r.URL.Query().Get("phone_number_id") == "convocheck-no-such-number" {
				q := r.URL.Query()
				q.Del("phone_number_id")
				r.URL.RawQuery = q.Encode()
			}
		}},
	{Name: "lookup without phone_number_id finding nothing", Want: "contacts/lookup-any-number",
		Req: func(r *http.Request) {
			if isPath(r, "/chatapp/contacts/lookup") && r.URL.Query().Get("phone_number_id") == "" && r.URL.Query().Get("phone_number") != "" {
				setQuery(r, "phone_number", "999000000001")
			}
		}},
	{Name: "a 429 on the conversation list", Want: "stopped",
		Resp: func(r *http.Request, status *int, b map[string]any) {
			if isPath(r, "/conversations") {
				*status = http.StatusTooManyRequests
			}
		}},
	{Name: "capability values other than the specification shows", Want: "channels/capability-values",
		Resp: func(r *http.Request, _ *int, b map[string]any) {
			if isPath(r, "/channels") {
				eachItem(b, func(m map[string]any) {
					if caps, ok := m["capabilities"].(map[string]any); ok && m["channel"] == "chatapp" {
						caps["max_text_length"] = json.Number("1000")
					}
				})
			}
		}},
	{Name: "a next_cursor in the anomaly report", Want: "anomalies/no-pagination",
		Resp: func(r *http.Request, _ *int, b map[string]any) {
			if isPath(r, "/anomalies") && data(b) != nil {
				data(b)["next_cursor"] = "page-2"
			}
		}},
	{Name: "the anomaly cap of 100 refused", Want: "anomalies/item-cap",
		Req: func(r *http.Request) {
			if isPath(r, "/anomalies") && r.URL.Query().Get("limit") == "100" {
				setQuery(r, "limit", "101")
			}
		}},
	{Name: "a reply after every conversation's last inbound message", Want: "anomalies/bucket-meaning",
		Resp: func(r *http.Request, status *int, b map[string]any) {
			if isMessages(r) && *status == http.StatusOK && data(b) != nil {
				reply := map[string]any{"message_id": "altered-reply", "direction": "outbound", "type": "text", "status": "sent",
					"text": "a reply", "media": nil, "reactions": []any{}, "sent_at": b["timestamp"], "delivered_at": nil,
					"read_at": nil, "failure_reason": nil, "raw": nil}
				data(b)["items"] = append([]any{reply}, items(b)...)
			}
		}},
	{Name: "custom fields replaced, not merged", Want: "write/custom-fields-merged",
		Req: func(r *http.Request) {
			if isPath(r, "/custom-fields") {
				editBody(r, func(m map[string]any) {
					if f, ok := m["custom_fields"].(map[string]any); ok && f["convocheck_merge_b"] != nil {
						f["convocheck_merge_a"] = ""
					}
				})
			}
		}},
	{Name: "custom fields of an unknown contact accepted", Want: "write/custom-fields-unknown-contact",
		Resp: acceptNotFound("/custom-fields")},
	{Name: "tag removal of an unknown contact accepted", Want: "write/remove-tags-unknown-contact",
		Resp: acceptNotFound("/contacts/tags")},
	{Name: "sequence cancel of an unknown contact accepted", Want: "write/sequence-cancel-unknown-contact",
		Resp: acceptNotFound("/sequences/cancel")},
	{Name: "every cancel reports canceled true", Want: "write/sequence-cancel-repeat",
		Resp: func(r *http.Request, status *int, b map[string]any) {
			if isPath(r, "/sequences/cancel") && *status == http.StatusOK && data(b) != nil {
				data(b)["canceled"] = true
			}
		}},
	{Name: "sequence cancel without phone_number_id finding nobody", Want: "write/sequence-cancel-any-number",
		Req: func(r *http.Request) {
			if isPath(r, "/sequences/cancel") {
				editBody(r, func(m map[string]any) {
					if _, ok := m["phone_number_id"]; !ok && m["phone_number"] != nil {
						m["phone_number"] = "999000000001"
					}
				})
			}
		}},
	{Name: "the key forms counted apart toward the limit", Want: "auth/forms-count-alike",
		Resp: func(r *http.Request, status *int, b map[string]any) {
			if *status == http.StatusTooManyRequests && (r.Header.Get("X-Api-Key") != "" || strings.HasPrefix(r.Header.Get("Authorization"), "ApiKey ")) {
				*status = http.StatusOK
				clear(b)
				b["success"], b["data"], b["timestamp"] = true, map[string]any{"items": []any{}}, "2026-11-26T12:00:00.000Z"
			}
		}},
}

// acceptNotFound turns a 404 CONTACT_NOT_FOUND of the write at path into a
// 200 confirmation.
func acceptNotFound(path string) func(*http.Request, *int, map[string]any) {
	return func(r *http.Request, status *int, b map[string]any) {
		if m := errMessage(b); isPath(r, path) && *status == http.StatusNotFound && m != nil && m["error"] == "CONTACT_NOT_FOUND" {
			*status = http.StatusOK
			ts := b["timestamp"]
			clear(b)
			b["success"], b["data"], b["timestamp"] = true, map[string]any{"message": "ok", "canceled": false}, ts
		}
	}
}

// editBody changes the JSON body of a request.
func editBody(r *http.Request, edit func(map[string]any)) {
	raw, err := io.ReadAll(r.Body)
	if err != nil {
		return
	}
	var m map[string]any
	if json.Unmarshal(raw, &m) == nil {
		edit(m)
		if b, err := json.Marshal(m); err == nil {
			raw = b
		}
	}
	r.Body = io.NopCloser(bytes.NewReader(raw))
	r.ContentLength = int64(len(raw))
}
