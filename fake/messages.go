package fake

import (
	"encoding/json"
	"net/http"
	"sort"
	"strconv"
	"time"
)

// RecentWindowDays is the read window without since (spec §4.1 rule 1, §8).
const RecentWindowDays = 30

// wireMessage is a message of spec §2.3. No field ever holds a URL or a
// storage path (rule 1).
type wireMessage struct {
	MessageID     string         `json:"message_id"`
	Direction     string         `json:"direction"`
	Type          string         `json:"type"`
	Status        *string        `json:"status"`
	Text          *string        `json:"text"`
	Media         *wireMedia     `json:"media"`
	Reactions     []wireReaction `json:"reactions"`
	SentAt        *string        `json:"sent_at"`
	DeliveredAt   *string        `json:"delivered_at"`
	ReadAt        *string        `json:"read_at"`
	FailureReason *string        `json:"failure_reason"`
	Raw           map[string]any `json:"raw"`
}

// wireMedia is the media block: always present on a media message (rule 2),
// media_id null unless available (rule 3).
type wireMedia struct {
	MediaID     *string `json:"media_id"`
	MediaStatus string  `json:"media_status"`
	MimeType    *string `json:"mime_type"`
	FileSize    *int64  `json:"file_size"`
	Filename    *string `json:"filename"`
}

// wireReaction is a reaction entry (D15).
type wireReaction struct {
	Emoji     string `json:"emoji"`
	Direction string `json:"direction"`
	ReactedAt string `json:"reacted_at"`
}

func optTime(t *time.Time) *string {
	if t == nil {
		return nil
	}
	s := formatTime(*t)
	return &s
}

// encoded returns the message's JSON, computing and caching it. Readers may
// race to fill the cache; they store equal values.
func (m *message) encoded() []byte {
	if b := m.enc.Load(); b != nil {
		return *b
	}
	wm := wireMessage{
		MessageID: m.id, Direction: m.direction, Type: m.typ, Status: m.status, Text: m.text,
		Reactions: make([]wireReaction, 0, len(m.reactions)),
		SentAt:    optTime(m.sentAt), DeliveredAt: optTime(m.deliveredAt), ReadAt: optTime(m.readAt),
		FailureReason: m.failureReason,
	}
	if m.typ != "system" && m.typ != "unsupported" { // spec §2.3 rule 6: raw null
		wm.Raw = rawFor(m)
	}
	if md := m.media; md != nil {
		wm.Media = &wireMedia{MediaStatus: md.status, MimeType: md.mime, FileSize: md.size, Filename: md.filename}
		if md.status == MediaAvailable {
			id := md.id
			wm.Media.MediaID = &id
		}
	}
	for _, r := range m.reactions {
		wm.Reactions = append(wm.Reactions, wireReaction{Emoji: r.emoji, Direction: r.direction, ReactedAt: formatTime(r.at)})
	}
	b, _ := json.Marshal(wm)
	m.enc.Store(&b)
	return b
}

// handleMessages serves GET /conversations/{id}/messages (spec §4.1): newest
// first; without since the last 30 days; cursors per D29.
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
		s.writeError(w, r, errf(http.StatusNotFound, CodeConversationNotFound, "Conversation not found."))
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
	case !hasSince: // the window starts exactly 30 days ago (inclusive), to the millisecond (D18)
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
		b = append(b, msgs[i].encoded()...)
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
