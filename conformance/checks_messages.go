package conformance

import (
	"context"
	"crypto/rand"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
)

func messageChecks() []*check {
	return []*check{
		{id: "messages/items", basis: BasisSpec, spec: "Response `data`: `items` (array of message, 2.3), `next_cursor` (string or null), `window` (2.4).", fn: checkMessageItems,
			title: "GET /conversations/{id}/messages: items, next_cursor and window; every message field with its type"},
		{id: "messages/enums", basis: BasisDecision, fn: checkMessageEnums,
			title: "message types and statuses are the documented ones; an inbound message's status is null"},
		{id: "messages/media", basis: BasisSpec, spec: "A message never carries a URL or a storage path.", fn: checkMessageMedia,
			title: "media: never a URL, always a block on a media message, media_id filled exactly when available"},
		{id: "messages/system", basis: BasisSpec, spec: "System and unsupported messages have an explicit `type` and `text`, `media` and `raw` all `null`.", fn: checkSystemMessages,
			title: "system and unsupported messages have text, media and raw null"},
		{id: "messages/reactions", basis: BasisDecision, fn: checkReactions,
			title: "reactions are {emoji, direction, reacted_at} inside the message reacted to"},
		{id: "messages/no-count", basis: BasisSpec, spec: "A message read carries no count of the conversation's messages.", fn: checkNoCount,
			title: "a message read carries no count of the conversation's messages"},
		{id: "messages/order", basis: BasisSpec, spec: "Reads the messages of a conversation, newest first, paginated by cursor.", fn: checkMessageOrder,
			title: "messages are read newest first"},
		{id: "messages/window", basis: BasisSpec, spec: "Without `since`, the read covers the last 30 days (a product choice, not a technical constraint).", fn: checkMessageWindow,
			title: "without since: window.recent_window_days is 30, and no message is before window.since"},
		{id: "messages/window-start", basis: BasisDecision, fn: checkMessageWindowStart,
			title: "without since: window.since is 30 days before the server's now (the envelope's timestamp, less up to a second of handling)"},
		{id: "messages/since", basis: BasisSpec, spec: "To reach older messages the caller supplies `since`.", fn: checkMessageSince,
			title: "since reaches beyond the 30-day window, and window.since says so"},
		{id: "messages/default-limit", basis: BasisSpec, spec: "| limit | query | integer | no | default 50, maximum 100 (valid 1 to 100) |", fn: checkMessageDefaultLimit,
			title: "without limit a page holds at most 50 messages"},
		{id: "messages/paging", basis: BasisSpec, spec: "| cursor | query | string | no | the `next_cursor` of the previous page |", fn: checkMessagePaging,
			title: "following next_cursor reads every message once, in order, and ends with null"},
		{id: "messages/limit-bounds", basis: BasisSpec, spec: "`limit` outside 1 to 100 or not an integer: 400 `INVALID_PARAM`.", fn: checkLimitBounds("/conversations/{conversation}/messages", nil),
			title: "limit 100 is accepted; 0, 101, 1.5 and abc are 400 INVALID_PARAM"},
		{id: "messages/unknown-conversation", basis: BasisSpec, spec: "Unknown conversation: 404 `CONVERSATION_NOT_FOUND`.", fn: checkUnknownConversation,
			title: "an unknown conversation: 404 CONVERSATION_NOT_FOUND"},
		{id: "messages/bad-cursor", basis: BasisDecision, fn: checkBadCursor("/conversations/{conversation}/messages"),
			title: "a cursor the server did not issue: 400 INVALID_PARAM"},
		{id: "messages/bad-since", basis: BasisDecision, fn: checkBadSince,
			title: "a since that is not RFC 3339: 400 INVALID_PARAM naming since"},
	}
}

var (
	messageTypes    = []string{"text", "image", "document", "audio", "video", "sticker", "location", "contact", "system", "unsupported"}
	messageStatuses = []string{"queued", "sent", "delivered", "read", "failed"}
	mediaTypes      = []string{"image", "document", "audio", "video", "sticker"}
)

// checkMessage checks the fields of one message and their types.
func checkMessage(f fields) {
	f.str("message_id", false)
	f.str("direction", false, "inbound", "outbound")
	f.str("type", false)
	f.str("status", true)
	f.str("text", true)
	if media, ok := f.object("media", true); ok {
		media.str("media_id", true)
		media.str("media_status", false, "available", "unknown", "no_reference")
		media.str("mime_type", true)
		media.integer("file_size", true)
		media.str("filename", true)
	}
	f.array("reactions")
	f.stamp("sent_at", true)
	f.stamp("delivered_at", true)
	f.stamp("read_at", true)
	f.str("failure_reason", true)
	f.object("raw", true)
}

func checkMessageItems(ctx context.Context, r *runner, c *check) {
	convs := r.d.convsWhere(func(cv map[string]any) bool { return str(cv, "last_message_at") != "" })
	if len(convs) == 0 {
		c.skipf("no conversation with messages")
		return
	}
	// Read the most recent conversations, and the oldest, which may hold
	// what the recent ones do not; then, while no file has been found, a
	// few more.
	pick := convs[:min(discoverConversations-1, len(convs))]
	if len(convs) > len(pick) {
		pick = append(pick, convs[len(convs)-1])
	}
	for _, cv := range pick {
		if !readMessages(ctx, r, c, str(cv, "id")) {
			return
		}
	}
	for i := discoverConversations - 1; r.d.mediaMsg == nil && i < min(len(convs), 2*discoverConversations); i++ {
		if !readMessages(ctx, r, c, str(convs[i], "id")) {
			return
		}
	}
}

// readMessages reads one page of a conversation's messages for the
// discovery, checking each; it returns false when the run cannot send.
func readMessages(ctx context.Context, r *runner, c *check, id string) bool {
	if r.d.msgEx[id] != nil {
		return true
	}
	ex, ok := r.get(ctx, c, "/conversations/"+url.PathEscape(id)+"/messages", url.Values{"limit": {"100"}})
	if !ok {
		return false
	}
	items, _, ok := page(c, ex, checkMessage)
	if !ok {
		return true
	}
	if w, ok := obj(c, ex, "data.window", ex.data()["window"]); ok {
		w.integer("recent_window_days", false)
		if since, ok := w.stamp("since", false); ok && r.d.window.IsZero() {
			r.d.window = since
		}
	}
	r.d.msgConvs = append(r.d.msgConvs, id)
	r.d.messages[id], r.d.msgEx[id] = items, ex
	for _, m := range items {
		if md, _ := m["media"].(map[string]any); r.d.mediaMsg == nil && str(md, "media_status") == "available" && str(md, "media_id") != "" {
			r.d.mediaConv, r.d.mediaMsg = id, m
		}
	}
	return true
}

// eachMessage calls fn on every message read, with its exchange; it skips
// the check when none was read.
func (r *runner) eachMessage(c *check, fn func(ex *exchange, m map[string]any)) int {
	n := 0
	for _, id := range r.d.msgConvs {
		for _, m := range r.d.messages[id] {
			fn(r.d.msgEx[id], m)
			n++
		}
	}
	if n == 0 {
		c.skipf("no message was read")
	}
	return n
}

func checkMessageEnums(_ context.Context, r *runner, c *check) {
	r.eachMessage(c, func(ex *exchange, m map[string]any) {
		id, typ := str(m, "message_id"), str(m, "type")
		if !slices.Contains(messageTypes, typ) {
			c.failf(ex, "message %s has type %q, not one of %q", id, typ, messageTypes)
		}
		st, isStr := m["status"].(string)
		switch {
		case str(m, "direction") == "inbound" && m["status"] != nil:
			c.failf(ex, "inbound message %s has status %v, want null", id, m["status"])
		case isStr && !slices.Contains(messageStatuses, st):
			c.failf(ex, "message %s has status %q, not one of %q", id, st, messageStatuses)
		}
	})
}

func checkMessageMedia(_ context.Context, r *runner, c *check) {
	seen := 0
	r.eachMessage(c, func(ex *exchange, m map[string]any) {
		id, typ := str(m, "message_id"), str(m, "type")
		md, isObj := m["media"].(map[string]any)
		if slices.Contains(mediaTypes, typ) && !isObj {
			c.failf(ex, "%s message %s has no media block", typ, id)
		}
		if !isObj {
			return
		}
		seen++
		for k, v := range md {
			if s, ok := v.(string); ok && (strings.Contains(s, "://") || strings.HasPrefix(s, "/")) {
				c.failf(ex, "message %s: media.%s %q is a URL or a path", id, k, s)
			}
			if k == "url" || k == "path" {
				c.failf(ex, "message %s: media has a %s field", id, k)
			}
		}
		status, mediaID := str(md, "media_status"), md["media_id"]
		switch {
		case status == "available" && mediaID == nil:
			c.failf(ex, "message %s: media available with a null media_id", id)
		case status != "available" && mediaID != nil:
			c.failf(ex, "message %s: media %s with media_id %v, want null", id, status, mediaID)
		}
	})
	if seen == 0 && !c.failed() {
		c.skipf("no message with a media block was read")
	}
}

func checkSystemMessages(_ context.Context, r *runner, c *check) {
	seen := 0
	r.eachMessage(c, func(ex *exchange, m map[string]any) {
		typ := str(m, "type")
		if typ != "system" && typ != "unsupported" {
			return
		}
		seen++
		for _, k := range []string{"text", "media", "raw"} {
			if m[k] != nil {
				c.failf(ex, "%s message %s has %s %v, want null", typ, str(m, "message_id"), k, m[k])
			}
		}
	})
	if seen == 0 && !c.failed() {
		c.skipf("no system or unsupported message was read")
	}
}

func checkReactions(_ context.Context, r *runner, c *check) {
	seen := 0
	r.eachMessage(c, func(ex *exchange, m map[string]any) {
		rs, _ := m["reactions"].([]any)
		for i, v := range rs {
			seen++
			f, ok := obj(c, ex, fmt.Sprintf("message %s reactions[%d]", str(m, "message_id"), i), v)
			if !ok {
				continue
			}
			f.str("emoji", false)
			f.str("direction", false, "inbound", "outbound")
			f.stamp("reacted_at", false)
		}
		if typ := str(m, "type"); typ == "reaction" {
			c.failf(ex, "message %s is a reaction: a reaction is never an item of the timeline", str(m, "message_id"))
		}
	})
	if seen == 0 && !c.failed() {
		c.skipf("no reaction was read")
	}
}

func checkNoCount(_ context.Context, r *runner, c *check) {
	if len(r.d.msgConvs) == 0 {
		c.skipf("no message read")
		return
	}
	for _, id := range r.d.msgConvs {
		ex := r.d.msgEx[id]
		for k := range ex.data() {
			if l := strings.ToLower(k); strings.Contains(l, "count") || strings.Contains(l, "total") {
				c.failf(ex, "data.%s: a message read carries no count", k)
			}
		}
	}
}

func checkMessageOrder(_ context.Context, r *runner, c *check) {
	n := 0
	for _, id := range r.d.msgConvs {
		items := r.d.messages[id]
		for i := 1; i < len(items); i++ {
			a, b := stampOf(items[i-1], "sent_at"), stampOf(items[i], "sent_at")
			if a.IsZero() || b.IsZero() {
				continue
			}
			n++
			if a.Before(b) {
				c.failf(r.d.msgEx[id], "conversation %s: message %s (sent %s) is before %s (sent %s)", id,
					str(items[i-1], "message_id"), str(items[i-1], "sent_at"), str(items[i], "message_id"), str(items[i], "sent_at"))
				return
			}
		}
	}
	if n == 0 {
		c.skipf("no conversation with two sent messages was read")
	}
}

func checkMessageWindow(_ context.Context, r *runner, c *check) {
	if len(r.d.msgConvs) == 0 {
		c.skipf("no message read")
		return
	}
	for _, id := range r.d.msgConvs {
		ex := r.d.msgEx[id]
		w, _ := ex.data()["window"].(map[string]any)
		if days := fmt.Sprint(w["recent_window_days"]); days != "30" {
			c.failf(ex, "window.recent_window_days is %s, want 30", days)
		}
		since := stampOf(w, "since")
		for _, m := range r.d.messages[id] {
			if t := stampOf(m, "sent_at"); !t.IsZero() && t.Before(since) {
				c.failf(ex, "message %s was sent at %s, before window.since %s", str(m, "message_id"), str(m, "sent_at"), str(w, "since"))
			}
		}
	}
}

func checkMessageWindowStart(_ context.Context, r *runner, c *check) {
	if len(r.d.msgConvs) == 0 {
		c.skipf("no message read")
		return
	}
	for _, id := range r.d.msgConvs {
		ex := r.d.msgEx[id]
		w, _ := ex.data()["window"].(map[string]any)
		since, now := stampOf(w, "since"), envelopeTime(ex)
		// The window is computed when the request arrives, the timestamp
		// when the answer leaves: a little before, never after.
		if want := now.Add(-30 * 24 * time.Hour); !since.IsZero() && !now.IsZero() && (since.After(want) || want.Sub(since) > time.Second) {
			c.failf(ex, "window.since is %s, want 30 days before the envelope's timestamp (%s)", str(w, "since"), want.Format(time.RFC3339Nano))
		}
	}
}

func checkMessageSince(ctx context.Context, r *runner, c *check) {
	if r.d.window.IsZero() || len(r.d.msgConvs) == 0 {
		c.skipf("no message read")
		return
	}
	// The conversation created first: the likeliest to hold messages older
	// than the window.
	id, created := "", time.Time{}
	for _, cv := range r.d.convs {
		if t := stampOf(cv, "created_at"); r.d.msgEx[str(cv, "id")] != nil && (id == "" || t.Before(created)) {
			id, created = str(cv, "id"), t
		}
	}
	since := r.d.window.Add(-365 * 24 * time.Hour)
	at := since.UTC().Format("2006-01-02T15:04:05.000Z")
	ex, ok := r.get(ctx, c, "/conversations/"+url.PathEscape(id)+"/messages", url.Values{"since": {at}, "limit": {"100"}})
	if !ok {
		return
	}
	items, _, ok := page(c, ex, checkMessage)
	if !ok {
		return
	}
	w, _ := ex.data()["window"].(map[string]any)
	if got := stampOf(w, "since"); !got.Equal(since) {
		c.failf(ex, "window.since is %s, want the since sent, %s", str(w, "since"), at)
	}
	older := 0
	for _, m := range items {
		t := stampOf(m, "sent_at")
		if !t.IsZero() && t.Before(since) {
			c.failf(ex, "message %s was sent at %s, before since %s", str(m, "message_id"), str(m, "sent_at"), at)
		}
		if !t.IsZero() && t.Before(r.d.window) {
			older++
		}
	}
	recent := r.d.messages[id]
	if len(items) < 100 && len(recent) < 100 {
		want := ids(recent, "message_id")
		if got := ids(items, "message_id"); len(got) < len(want) || !slices.Equal(got[:len(want)], want) {
			c.failf(ex, "since=%s reads %d messages that do not begin with the %d of the 30-day window", at, len(got), len(want))
		}
		if older != len(items)-len(recent) {
			c.failf(ex, "since=%s reads %d messages beyond the 30-day window, %d more than without since", at, older, len(items)-len(recent))
		}
	}
}

func checkMessageDefaultLimit(ctx context.Context, r *runner, c *check) {
	id, n := r.d.conversationWithMost()
	if id == "" {
		c.skipf("no message read")
		return
	}
	ex, ok := r.get(ctx, c, "/conversations/"+url.PathEscape(id)+"/messages", nil)
	if !ok {
		return
	}
	items, _, ok := page(c, ex, nil)
	if !ok {
		return
	}
	if want := min(n, 50); len(items) != want {
		c.failf(ex, "%d messages without limit, want %d (%d read with limit=100; the default page size is 50)", len(items), want, n)
	}
}

func checkMessagePaging(ctx context.Context, r *runner, c *check) {
	id, n := r.d.conversationWithMost()
	if n < 2 {
		c.skipf("no conversation with two messages was read")
		return
	}
	limit := max(1, (min(n, 100)+2)/3)
	got, end, ok := follow(ctx, r, c, "/conversations/"+url.PathEscape(id)+"/messages", "message_id", url.Values{"limit": {strconv.Itoa(limit)}})
	if !ok {
		return
	}
	want := ids(r.d.messages[id], "message_id")
	k := min(len(got), len(want))
	if !slices.Equal(got[:k], want[:k]) {
		c.failf(nil, "paging conversation %s with limit=%d reads messages that differ from one page of 100 (first difference at %d)", id, limit, firstDiff(got, want))
	}
	if end && n < 100 && len(got) != n {
		c.failf(nil, "paging conversation %s with limit=%d ended after %d messages, want %d", id, limit, len(got), n)
	}
}

// randomUUID is a UUID no server has issued.
func randomUUID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

func checkUnknownConversation(ctx context.Context, r *runner, c *check) {
	ex, ok := r.get(ctx, c, "/conversations/"+randomUUID()+"/messages", nil)
	if !ok {
		return
	}
	errorAnswer(c, ex, http.StatusNotFound, "CONVERSATION_NOT_FOUND")
}

func checkBadSince(ctx context.Context, r *runner, c *check) {
	path, ok := r.conversationPath(c, "/conversations/{conversation}/messages")
	if !ok {
		return
	}
	ex, ok := r.get(ctx, c, path, url.Values{"since": {"yesterday"}})
	if !ok {
		return
	}
	if msg, ok := errorAnswer(c, ex, http.StatusBadRequest, "INVALID_PARAM"); ok {
		mentions(c, ex, msg, "since")
	}
}
