package conformance

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
)

func conversationChecks() []*check {
	return []*check{
		{id: "conversations/items", basis: BasisDecision, fn: checkConversationItems,
			title: "GET /conversations?status=all: a page (items, next_cursor) of conversations with the documented fields"},
		{id: "conversations/accounts", basis: BasisDecision, fn: checkConversationAccounts,
			title: "a conversation's channel_account_id is a listed account of its channel; webchat widgets are never listed"},
		{id: "conversations/order", basis: BasisDecision, fn: checkConversationOrder,
			title: "conversations are listed most recent last_message_at first, ties by id descending"},
		{id: "conversations/defaults", basis: BasisSpec, spec: "| conversation page size | default 25, maximum 100 | conversation list |", fn: checkConversationDefaults,
			title: "without parameters: open conversations only, at most 25"},
		{id: "conversations/paging", basis: BasisDecision, fn: checkConversationPaging,
			title: "following next_cursor lists every conversation once, in order, and ends with null"},
		{id: "conversations/limit-bounds", basis: BasisSpec, spec: "| 400 | INVALID_PARAM | parameter invalid, e.g. `limit` not an integer from 1 to 100 |", fn: checkLimitBounds("/conversations", url.Values{"status": {"all"}}),
			title: "limit 100 is accepted; 0, 101, 1.5 and abc are 400 INVALID_PARAM"},
		{id: "conversations/filter-status", basis: BasisSpec, spec: "| status | string | `open` (default), `resolved`, `archived`, `all` |", fn: checkFilterStatus,
			title: "status=open, resolved, archived list only that status"},
		{id: "conversations/filter-channel", basis: BasisSpec, spec: "| channel | string | `chatapp`, `botapp`, `webchat` |", fn: checkFilterChannel,
			title: "channel=chatapp, botapp, webchat list only that channel"},
		{id: "conversations/filter-channel-id", basis: BasisSpec, spec: "| channel_id | string | channel account id, from the channel list |", fn: checkFilterChannelID,
			title: "channel_id lists only that account's conversations"},
		{id: "conversations/filter-assigned", basis: BasisSpec, spec: "| assigned | boolean | with or without a responsible agent |", fn: checkFilterAssigned,
			title: "assigned=true and assigned=false list only those conversations"},
		{id: "conversations/filter-dates", basis: BasisDecision, fn: checkFilterDates,
			title: "since (inclusive) and until (exclusive) bound last_message_at"},
		{id: "conversations/filter-identifier", basis: BasisDecision, fn: checkFilterIdentifier,
			title: "channel_identifier and phone find the conversations of that contact"},
		{id: "conversations/bad-filters", basis: BasisDecision, fn: checkBadFilters,
			title: "an unknown channel or status, a non-boolean assigned, a date that is not RFC 3339: 400 INVALID_PARAM naming the parameter"},
		{id: "conversations/bad-cursor", basis: BasisDecision, fn: checkBadCursor("/conversations"),
			title: "a cursor the server did not issue: 400 INVALID_PARAM"},
	}
}

// checkConversation checks the fields of one conversation item.
func checkConversation(f fields) {
	f.uuid("id")
	f.uuid("contact_id")
	f.str("channel", false, "chatapp", "botapp", "webchat")
	f.str("channel_account_id", false)
	f.str("channel_identifier", false)
	f.str("status", false, "open", "resolved", "archived")
	f.boolean("assigned")
	if n, ok := f.integer("unread_count", false); ok && n < 0 {
		f.c.failf(f.ex, "%s: negative unread_count %d", f.where, n)
	}
	in, _ := f.stamp("last_inbound_at", true)
	last, _ := f.stamp("last_message_at", true)
	f.stamp("created_at", false)
	if !in.IsZero() && !last.IsZero() && in.After(last) {
		f.c.failf(f.ex, "%s: last_inbound_at %s is after last_message_at %s", f.where, in.Format(time.RFC3339Nano), last.Format(time.RFC3339Nano))
	}
}

// page checks a page answer (envelope, items, next_cursor) and returns its
// items, its cursor ("" for null) and whether it was well formed.
func page(c *check, ex *exchange, each func(fields)) ([]map[string]any, string, bool) {
	data, ok := envelope(c, ex, http.StatusOK)
	if !ok {
		return nil, "", false
	}
	items, ok := data.array("items")
	if !ok {
		return nil, "", false
	}
	var out []map[string]any
	for i, v := range items {
		if f, ok := data.item("items", i, v); ok {
			if each != nil {
				each(f)
			}
			out = append(out, f.m)
		}
	}
	cursor, _ := data.str("next_cursor", true)
	return out, cursor, true
}

func checkConversationItems(ctx context.Context, r *runner, c *check) {
	q := url.Values{"status": {"all"}, "limit": {"100"}}
	for range discoverPages {
		ex, ok := r.get(ctx, c, "/conversations", q)
		if !ok {
			return
		}
		items, cursor, ok := page(c, ex, checkConversation)
		if !ok {
			return
		}
		r.d.convs = append(r.d.convs, items...)
		if cursor == "" {
			r.d.convsComplete = true
			break
		}
		q.Set("cursor", cursor)
	}
	if len(r.d.convs) == 0 {
		c.skipf("the account has no conversations")
	}
}

func checkConversationAccounts(_ context.Context, r *runner, c *check) {
	if len(r.d.convs) == 0 || r.d.channelsEx == nil {
		c.skipf("no conversations or no channel list")
		return
	}
	listed := map[string]string{}
	for _, ch := range r.d.channels {
		listed[str(ch, "id")] = str(ch, "channel")
	}
	for _, cv := range r.d.convs {
		acc, ch := str(cv, "channel_account_id"), str(cv, "channel")
		switch got, ok := listed[acc]; {
		case ch == "webchat" && ok:
			c.failf(nil, "webchat conversation %s has channel_account_id %s, a listed %s account; a widget is never listed", str(cv, "id"), acc, got)
		case ch != "webchat" && !ok:
			c.failf(nil, "%s conversation %s has channel_account_id %s, which the channel list does not hold", ch, str(cv, "id"), acc)
		case ch != "webchat" && got != ch:
			c.failf(nil, "%s conversation %s is on account %s, a %s account", ch, str(cv, "id"), acc, got)
		}
		if len(c.reasons) >= 5 {
			return
		}
	}
}

func checkConversationOrder(_ context.Context, r *runner, c *check) {
	if len(r.d.convs) < 2 {
		c.skipf("fewer than two conversations to order")
		return
	}
	for i := 1; i < len(r.d.convs); i++ {
		if conversationOrder(r.d.convs[i-1], r.d.convs[i]) > 0 {
			c.failf(nil, "conversation %s (last activity %s) is listed before %s (last activity %s)",
				str(r.d.convs[i-1], "id"), activity(r.d.convs[i-1]).Format(time.RFC3339Nano),
				str(r.d.convs[i], "id"), activity(r.d.convs[i]).Format(time.RFC3339Nano))
			return
		}
	}
}

func checkConversationDefaults(ctx context.Context, r *runner, c *check) {
	ex, ok := r.get(ctx, c, "/conversations", nil)
	if !ok {
		return
	}
	items, _, ok := page(c, ex, nil)
	if !ok {
		return
	}
	if len(items) > 25 {
		c.failf(ex, "%d items, want at most 25 (the default page size)", len(items))
	}
	for _, it := range items {
		if s := str(it, "status"); s != "open" {
			c.failf(ex, "conversation %s has status %q: the default lists open conversations only", str(it, "id"), s)
			return
		}
	}
	// The count, not the ids: on a live account a conversation may change
	// between two reads.
	if r.d.convsComplete {
		open := r.d.convsWhere(func(cv map[string]any) bool { return str(cv, "status") == "open" })
		if want := min(25, len(open)); len(items) != want {
			c.failf(ex, "the default page lists %d conversations, want %d (status=all lists %d open ones)", len(items), want, len(open))
		}
	}
}

// follow pages through path with q (its limit set) up to pagingPages
// pages, checking that no cursor and no item repeats, and returns the
// items and whether the last page was reached.
func follow(ctx context.Context, r *runner, c *check, path, key string, q url.Values) ([]string, bool, bool) {
	var got []string
	seen, cursors := map[string]bool{}, map[string]bool{}
	for range pagingPages {
		ex, ok := r.get(ctx, c, path, q)
		if !ok {
			return nil, false, false
		}
		items, cursor, ok := page(c, ex, nil)
		if !ok {
			return nil, false, false
		}
		if n, _ := strconv.Atoi(q.Get("limit")); len(items) > n {
			c.failf(ex, "a page of limit=%d has %d items", n, len(items))
		}
		for _, id := range ids(items, key) {
			if seen[id] {
				c.failf(ex, "%s %s is listed twice while paging", key, id)
				return nil, false, false
			}
			seen[id] = true
			got = append(got, id)
		}
		if cursor == "" {
			return got, true, true
		}
		if cursors[cursor] || cursor == q.Get("cursor") {
			c.failf(ex, "next_cursor %q repeats a cursor already given", cursor)
			return nil, false, false
		}
		if len(items) == 0 {
			c.failf(ex, "an empty page has a next_cursor")
			return nil, false, false
		}
		cursors[cursor] = true
		q.Set("cursor", cursor)
	}
	return got, false, true
}

func checkConversationPaging(ctx context.Context, r *runner, c *check) {
	n := len(r.d.convs)
	if n < 2 {
		c.skipf("fewer than two conversations to page through")
		return
	}
	limit := max(1, (min(n, 100)+2)/3)
	got, end, ok := follow(ctx, r, c, "/conversations", "id", url.Values{"status": {"all"}, "limit": {strconv.Itoa(limit)}})
	if !ok {
		return
	}
	want := ids(r.d.convs, "id")
	k := min(len(got), len(want))
	if !slices.Equal(got[:k], want[:k]) {
		c.failf(nil, "paging with limit=%d lists %d conversations that differ from the pages of 100 (first difference at %d)", limit, len(got), firstDiff(got, want))
	}
	if end && r.d.convsComplete && len(got) != len(r.d.convs) {
		c.failf(nil, "paging with limit=%d ended after %d conversations, want %d", limit, len(got), len(r.d.convs))
	}
}

func firstDiff(a, b []string) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// checkLimitBounds: limit=100 is a page; 0, 101, 1.5 and abc are refused.
func checkLimitBounds(path string, base url.Values) func(context.Context, *runner, *check) {
	return func(ctx context.Context, r *runner, c *check) {
		path, ok := r.conversationPath(c, path)
		if !ok {
			return
		}
		for _, limit := range []string{"100", "0", "101", "1.5", "abc"} {
			q := url.Values{"limit": {limit}}
			for k, v := range base {
				q[k] = v
			}
			ex, ok := r.get(ctx, c, path, q)
			if !ok {
				return
			}
			if limit == "100" {
				if items, _, ok := page(c, ex, nil); ok && len(items) > 100 {
					c.failf(ex, "limit=100 gives %d items", len(items))
				}
				continue
			}
			if msg, ok := errorAnswer(c, ex, http.StatusBadRequest, "INVALID_PARAM"); ok {
				mentions(c, ex, msg, "limit")
			}
		}
	}
}

// mentions checks that an error text names the parameter.
func mentions(c *check, ex *exchange, msg fields, param string) {
	if text := str(msg.m, "message"); !strings.Contains(text, param) {
		c.failf(ex, "the error text %q does not name %s", text, param)
	}
}

// filterCheck lists with q and checks every item with keep; when the
// discovered list is complete and the answer fits in one page, it also
// checks that the answer is exactly the discovered conversations keep
// accepts.
func filterCheck(ctx context.Context, r *runner, c *check, q url.Values, what string, keep func(map[string]any) bool) {
	q.Set("limit", "100")
	ex, ok := r.get(ctx, c, "/conversations", q)
	if !ok {
		return
	}
	items, cursor, ok := page(c, ex, nil)
	if !ok {
		return
	}
	for _, it := range items {
		if !keep(it) {
			c.failf(ex, "%s: conversation %s does not match (%s)", q.Encode(), str(it, "id"), what)
			return
		}
	}
	if r.d.convsComplete && cursor == "" && q.Get("status") == "all" {
		want := ids(r.d.convsWhere(keep), "id")
		if got := ids(items, "id"); !slices.Equal(sortedIDs(got), sortedIDs(want)) {
			c.failf(ex, "%s lists %d conversations, want the %d of status=all that match (%s)", q.Encode(), len(got), len(want), what)
		}
	}
}

func checkFilterStatus(ctx context.Context, r *runner, c *check) {
	for _, s := range []string{"open", "resolved", "archived"} {
		filterCheck(ctx, r, c, url.Values{"status": {s}}, "status "+s, func(cv map[string]any) bool { return str(cv, "status") == s })
		if c.failed() {
			return
		}
	}
	if len(r.d.convs) == 0 {
		c.skipf("no conversations to filter")
	}
}

func checkFilterChannel(ctx context.Context, r *runner, c *check) {
	for _, ch := range []string{"chatapp", "botapp", "webchat"} {
		filterCheck(ctx, r, c, url.Values{"status": {"all"}, "channel": {ch}}, "channel "+ch, func(cv map[string]any) bool { return str(cv, "channel") == ch })
		if c.failed() {
			return
		}
	}
}

func checkFilterChannelID(ctx context.Context, r *runner, c *check) {
	if len(r.d.convs) == 0 {
		c.skipf("no conversations to filter")
		return
	}
	id := str(r.d.convs[0], "channel_account_id")
	filterCheck(ctx, r, c, url.Values{"status": {"all"}, "channel_id": {id}}, "channel_account_id "+id,
		func(cv map[string]any) bool { return str(cv, "channel_account_id") == id })
}

func checkFilterAssigned(ctx context.Context, r *runner, c *check) {
	for _, a := range []bool{true, false} {
		filterCheck(ctx, r, c, url.Values{"status": {"all"}, "assigned": {strconv.FormatBool(a)}}, fmt.Sprintf("assigned %t", a),
			func(cv map[string]any) bool { b, _ := cv["assigned"].(bool); return b == a })
		if c.failed() {
			return
		}
	}
}

func checkFilterDates(ctx context.Context, r *runner, c *check) {
	withLast := r.d.convsWhere(func(cv map[string]any) bool { return !stampOf(cv, "last_message_at").IsZero() })
	if len(withLast) == 0 {
		c.skipf("no conversation with messages")
		return
	}
	pivot := stampOf(withLast[len(withLast)/2], "last_message_at")
	at := pivot.UTC().Format("2006-01-02T15:04:05.000Z")
	filterCheck(ctx, r, c, url.Values{"status": {"all"}, "since": {at}}, "last_message_at >= "+at, func(cv map[string]any) bool {
		t := stampOf(cv, "last_message_at")
		return !t.IsZero() && !t.Before(pivot)
	})
	if c.failed() {
		return
	}
	filterCheck(ctx, r, c, url.Values{"status": {"all"}, "until": {at}}, "last_message_at < "+at, func(cv map[string]any) bool {
		t := stampOf(cv, "last_message_at")
		return !t.IsZero() && t.Before(pivot)
	})
}

func checkFilterIdentifier(ctx context.Context, r *runner, c *check) {
	chat := r.d.convsWhere(func(cv map[string]any) bool { return str(cv, "channel") == "chatapp" })
	if len(chat) == 0 {
		c.skipf("no chatapp conversation (whose channel_identifier is a phone)")
		return
	}
	ident := str(chat[0], "channel_identifier")
	filterCheck(ctx, r, c, url.Values{"status": {"all"}, "channel_identifier": {ident}}, "channel_identifier "+ident,
		func(cv map[string]any) bool { return str(cv, "channel_identifier") == ident })
	if c.failed() {
		return
	}
	// phone matches every contact with that phone, on every account: it
	// finds at least the chatapp conversations whose identifier is it.
	q := url.Values{"status": {"all"}, "phone": {ident}, "limit": {"100"}}
	ex, ok := r.get(ctx, c, "/conversations", q)
	if !ok {
		return
	}
	items, _, ok := page(c, ex, nil)
	if !ok {
		return
	}
	got := ids(items, "id")
	for _, cv := range chat {
		if str(cv, "channel_identifier") == ident && !slices.Contains(got, str(cv, "id")) {
			c.failf(ex, "phone=%s does not list conversation %s of that phone", ident, str(cv, "id"))
		}
	}
}

func checkBadFilters(ctx context.Context, r *runner, c *check) {
	for _, bad := range []struct{ name, value string }{
		{"channel", "carrier-pigeon"}, {"status", "pending"}, {"assigned", "maybe"},
		{"since", "yesterday"}, {"until", "2026-13-01"},
	} {
		ex, ok := r.get(ctx, c, "/conversations", url.Values{bad.name: {bad.value}})
		if !ok {
			return
		}
		if msg, ok := errorAnswer(c, ex, http.StatusBadRequest, "INVALID_PARAM"); ok {
			mentions(c, ex, msg, bad.name)
		}
	}
}

func checkBadCursor(path string) func(context.Context, *runner, *check) {
	return func(ctx context.Context, r *runner, c *check) {
		path, ok := r.conversationPath(c, path)
		if !ok {
			return
		}
		ex, ok := r.get(ctx, c, path, url.Values{"cursor": {"convocheck-not-a-cursor"}})
		if !ok {
			return
		}
		if msg, ok := errorAnswer(c, ex, http.StatusBadRequest, "INVALID_PARAM"); ok {
			mentions(c, ex, msg, "cursor")
		}
	}
}

// conversationPath fills {conversation} in path with the first
// conversation whose messages were read.
func (r *runner) conversationPath(c *check, path string) (string, bool) {
	if !strings.Contains(path, "{conversation}") {
		return path, true
	}
	if len(r.d.msgConvs) == 0 {
		c.skipf("no conversation whose messages could be read")
		return "", false
	}
	return strings.Replace(path, "{conversation}", url.PathEscape(r.d.msgConvs[0]), 1), true
}
