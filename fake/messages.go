package fake

import (
	"encoding/json"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"time"

	convo "github.com/convoapi/convo-go"
)

// RecentWindowDays is the read window without since (spec §4.1 rule 1, §8).
const RecentWindowDays = 30

func optTime(t *time.Time) *string {
	if t == nil {
		return nil
	}
	s := formatTime(*t)
	return &s
}

// appendMessage appends the message's JSON (spec §2.3), byte for byte what
// encoding/json writes for a wireMessage, without reflection. Nothing is
// cached: a cache the size of the store would double the fake's memory once
// every page had been read, and encoding this way costs little more than
// copying.
func appendMessage(b []byte, m *message) []byte {
	b = append(b, `{"message_id":`...)
	b = appendString(b, m.id)
	b = append(b, `,"direction":`...)
	b = appendString(b, string(m.direction))
	b = append(b, `,"type":`...)
	b = appendString(b, string(m.typ))
	b = append(b, `,"status":`...)
	b = appendOptString(b, m.status)
	b = append(b, `,"text":`...)
	b = appendOptString(b, m.text)
	b = append(b, `,"media":`...)
	if md := m.media; md == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, `{"media_id":`...)
		if md.status == convo.MediaAvailable {
			b = appendString(b, md.id)
		} else {
			b = append(b, "null"...)
		}
		b = append(b, `,"media_status":`...)
		b = appendString(b, string(md.status))
		b = append(b, `,"mime_type":`...)
		b = appendOptString(b, md.mime)
		b = append(b, `,"file_size":`...)
		if md.size == nil {
			b = append(b, "null"...)
		} else {
			b = strconv.AppendInt(b, *md.size, 10)
		}
		b = append(b, `,"filename":`...)
		b = appendOptString(b, md.filename)
		b = append(b, '}')
	}
	b = append(b, `,"reactions":[`...)
	for i, r := range m.reactions {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"emoji":`...)
		b = appendString(b, r.emoji)
		b = append(b, `,"direction":`...)
		b = appendString(b, string(r.direction))
		b = append(b, `,"reacted_at":"`...)
		b = appendTimeFast(b, r.at)
		b = append(b, `"}`...)
	}
	b = append(b, `],"sent_at":`...)
	b = appendOptTime(b, m.sentAt)
	b = append(b, `,"delivered_at":`...)
	b = appendOptTime(b, m.deliveredAt)
	b = append(b, `,"read_at":`...)
	b = appendOptTime(b, m.readAt)
	b = append(b, `,"failure_reason":`...)
	b = appendOptString(b, m.failureReason)
	b = append(b, `,"raw":`...)
	if m.typ == "system" || m.typ == "unsupported" { // spec §2.3 rule 6: raw null
		b = append(b, "null"...)
	} else {
		b = appendRaw(b, m)
	}
	return append(b, '}')
}

// appendRaw appends rawFor(m) as encoding/json writes the map: keys sorted.
func appendRaw(b []byte, m *message) []byte {
	b = append(b, `{"content":{`...)
	if m.text != nil {
		b = append(b, `"body":`...)
		b = appendString(b, *m.text)
		b = append(b, ',')
	}
	if md := m.media; md != nil && md.status == convo.MediaAvailable {
		b = append(b, `"file_size":`...)
		b = strconv.AppendInt(b, *md.size, 10)
		b = append(b, `,"mime_type":`...)
		b = appendString(b, *md.mime)
		b = append(b, ',')
	}
	b = append(b, `"type":`...)
	b = appendString(b, string(m.typ))
	b = append(b, `},"origin":`...)
	b = appendString(b, string(m.sender))
	b = append(b, `,"provider_message_id":`...)
	if !plainJSON(m.id) { // rare: ids are UUIDs or test names
		b = appendString(b, "pmid."+strings.ReplaceAll(m.id, "-", ""))
		return append(b, '}')
	}
	b = append(b, `"pmid.`...)
	for i := 0; i < len(m.id); i++ {
		if m.id[i] != '-' {
			b = append(b, m.id[i])
		}
	}
	return append(b, `"}`...)
}

func appendOptString(b []byte, s *string) []byte {
	if s == nil {
		return append(b, "null"...)
	}
	return appendString(b, *s)
}

func appendOptTime(b []byte, t *time.Time) []byte {
	if t == nil {
		return append(b, "null"...)
	}
	b = append(b, '"')
	b = appendTimeFast(b, *t)
	return append(b, '"')
}

// appendTimeFast is appendTime for the years 0 to 9999, without parsing
// the layout at every call: a page holds a few hundred timestamps.
func appendTimeFast(b []byte, t time.Time) []byte {
	t = t.UTC()
	y, mo, d := t.Date()
	if y < 0 || y > 9999 {
		return appendTime(b, t)
	}
	h, mi, s := t.Clock()
	ms := t.Nanosecond() / 1e6
	two := func(b []byte, v int) []byte { return append(b, byte('0'+v/10), byte('0'+v%10)) }
	b = append(b, byte('0'+y/1000), byte('0'+y/100%10), byte('0'+y/10%10), byte('0'+y%10), '-')
	b = append(two(b, int(mo)), '-')
	b = append(two(b, d), 'T')
	b = append(two(b, h), ':')
	b = append(two(b, mi), ':')
	b = append(two(b, s), '.', byte('0'+ms/100), byte('0'+ms/10%10), byte('0'+ms%10), 'Z')
	return b
}

// appendString appends s as a JSON string exactly as encoding/json does:
// printable ASCII as is, anything else through encoding/json itself.
func appendString(b []byte, s string) []byte {
	if plainJSON(s) {
		b = append(b, '"')
		b = append(b, s...)
		return append(b, '"')
	}
	enc, _ := json.Marshal(s)
	return append(b, enc...)
}

// plainJSON reports whether encoding/json writes s as is between quotes.
func plainJSON(s string) bool {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c < 0x20 || c >= 0x7f, c == '"', c == '\\', c == '<', c == '>', c == '&':
			return false
		}
	}
	return true
}

// handleMessages serves GET /conversations/{id}/messages (spec §4.1): newest
// first; without since the last 30 days; cursors stay valid while messages arrive.
//
// A cursor carries the window of the first page; with a cursor, since is
// ignored. Paging goes from the newest message to the oldest by (sent time,
// id), so messages arriving meanwhile (newer) never shift later pages.
func (s *Server) handleMessages(w http.ResponseWriter, r *http.Request, co *company, args []string) {
	q := r.URL.Query()
	limit, e := parseLimit(q, "limit", defaultMessagePageLimit, 100)
	if e != nil {
		s.writeError(w, r, e)
		return
	}
	var (
		cur       cursor
		hasCursor bool
	)
	since, hasSince, e := parseTime(q, "since")
	if e != nil {
		s.writeError(w, r, e)
		return
	}
	if v := q.Get("cursor"); v != "" || q.Has("cursor") {
		if cur, e = s.decodeCursor(v, "m"); e != nil {
			s.writeError(w, r, e)
			return
		}
		hasCursor = true
	}
	now := s.clock.Now()

	// The answer is built under the read lock and written after it, so a
	// slow client never holds up writers.
	s.mu.RLock()
	conv := co.convsByID[args[0]]
	if conv == nil {
		s.mu.RUnlock()
		s.writeError(w, r, errf(http.StatusNotFound, convo.CodeConversationNotFound, "Conversation not found."))
		return
	}
	if hasCursor && cur.Conv != conv.id {
		s.mu.RUnlock()
		s.writeError(w, r, invalidParam("cursor is invalid: it belongs to another conversation"))
		return
	}
	switch {
	case hasCursor:
		since = time.Unix(0, cur.Since).UTC()
	case !hasSince: // the window starts exactly 30 days ago (inclusive), to the millisecond
		since = now.Add(-RecentWindowDays * 24 * time.Hour).Truncate(time.Millisecond)
	}
	msgs := conv.msgs
	lo := sort.Search(len(msgs), func(i int) bool { return !msgs[i].at.Before(since) })
	hi := len(msgs)
	if hasCursor {
		at := time.Unix(0, cur.At)
		hi = sort.Search(len(msgs), func(i int) bool { return !msgLess(msgs[i].at, msgs[i].id, &message{at: at, id: cur.ID}) })
	}
	start := max(lo, hi-limit)

	bp := startEnvelope()
	b := append(*bp, `{"items":[`...)
	for i := hi - 1; i >= start; i-- {
		if i != hi-1 {
			b = append(b, ',')
		}
		b = appendMessage(b, msgs[i])
	}
	b = append(b, `],"next_cursor":`...)
	if start > lo && start < hi {
		last := msgs[start]
		b = strconv.AppendQuote(b, s.encodeCursor(cursor{Kind: "m", Conv: conv.id, Since: since.UnixNano(), At: last.at.UnixNano(), ID: last.id}))
	} else {
		b = append(b, "null"...)
	}
	b = append(b, `,"window":{"recent_window_days":`...)
	b = strconv.AppendInt(b, RecentWindowDays, 10)
	b = append(b, `,"since":"`...)
	b = appendTime(b, since)
	b = append(b, `"}}`...)
	s.mu.RUnlock()
	*bp = b
	s.writeEnvelope(w, http.StatusOK, bp)
}
