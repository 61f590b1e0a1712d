package fake

import (
	"net/http"
	"slices"
	"sort"
	"time"

	convo "github.com/convoapi/convo-go"
)

// RecentWindowDays is the read window of GET
// /conversations/{conversation_id}/messages without since, in days.
const RecentWindowDays = 30

// handleMessages serves GET /conversations/{conversation_id}/messages: newest
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

	// The page is encoded under the read lock, from the cache of pages and
	// messages read lately for the most part, and written after it, so a
	// slow client never holds up writers.
	var data []byte
	e = s.withStore(readOnly, func() *apiError {
		conv := co.convsByID.get(args[0])
		if conv == nil {
			return errf(http.StatusNotFound, convo.CodeConversationNotFound, "Conversation not found.")
		}
		if hasCursor && cur.Conv != conv.ID {
			return invalidParam("cursor is invalid: it belongs to another conversation")
		}
		switch {
		case hasCursor:
			since = time.UnixMilli(cur.SinceMilli).UTC()
		case !hasSince: // the window starts exactly 30 days ago (inclusive), to the millisecond
			since = now.Add(-RecentWindowDays * 24 * time.Hour).Truncate(time.Millisecond)
		}
		msgs, from := conv.msgs, nanos(since)
		lo := sort.Search(len(msgs), func(i int) bool { return msgs[i].at >= from })
		hi := len(msgs)
		if hasCursor {
			probe := &message{at: cur.At}
			probe.setID(cur.ID)
			hi = sort.Search(len(msgs), func(i int) bool { return !msgs[i].before(probe) })
		}
		start := max(lo, hi-limit)
		// The key holds the window as the page shows it, not from, which
		// clamps every since before 1678 to one instant.
		key := pageKey{conv: conv, sinceMilli: since.UnixMilli(), start: start, hi: hi, version: conv.version}
		if !s.on(shortcutPages) {
			data = s.messagePage(co, conv, since, lo, start, hi)
			return nil
		}
		var ok bool
		if data, ok = co.encoded.page(key); ok {
			return nil
		}
		data = s.messagePage(co, conv, since, lo, start, hi)
		co.encoded.keepPage(key, data)
		return nil
	})
	if e != nil {
		s.writeError(w, r, e)
		return
	}
	s.writeEncoded(w, http.StatusOK, part{json: data})
}

// messagePage is the data of a page: the stored messages [start, hi),
// newest first, the cursor of the next page (none when start is the
// window's first message, lo) and the window. The caller holds the store's
// lock, at least for reading.
func (s *Server) messagePage(co *company, conv *conversation, since time.Time, lo, start, hi int) []byte {
	page := slices.Clone(conv.msgs[start:hi])
	slices.Reverse(page) // newest first
	var next *string
	if start > lo && start < hi {
		last := conv.msgs[start]
		c := s.encodeCursor(cursor{Kind: "m", Conv: conv.ID, SinceMilli: since.UnixMilli(), At: last.at, ID: last.id()})
		next = &c
	}
	window := struct {
		RecentWindowDays int    `json:"recent_window_days"`
		Since            string `json:"since"`
	}{RecentWindowDays, formatTime(since)}
	var items [][]byte
	if s.on(shortcutMessages) {
		items = co.encoded.encodeAll(page)
	} else {
		items = make([][]byte, len(page))
		for i, m := range page {
			items[i] = m.encode()
		}
	}
	return part{fields: []part{{name: "items", items: items},
		{name: "next_cursor", json: encode(next)}, {name: "window", json: encode(window)}}}.append(nil)
}
