package fake

import (
	"net/http"
	"sort"
	"strings"
	"time"

	convo "github.com/convoapi/convo-go"
)

// RecentWindowDays is the read window of GET
// /conversations/{conversation_id}/messages without since, in days.
const RecentWindowDays = 30

// wireMessage is a message as GET /conversations/{conversation_id}/messages
// shows it. It has convo.Message's fields, but with times written as every
// time of the API is (formatTime) and the null media fields the wire has.
type wireMessage struct {
	MessageID     string            `json:"message_id"`
	Direction     convo.Direction   `json:"direction"`
	Type          convo.MessageType `json:"type"`
	Status        *string           `json:"status"`
	Text          *string           `json:"text"`
	Media         *wireMedia        `json:"media"`
	Reactions     []wireReaction    `json:"reactions"`
	SentAt        *string           `json:"sent_at"`
	DeliveredAt   *string           `json:"delivered_at"`
	ReadAt        *string           `json:"read_at"`
	FailureReason *string           `json:"failure_reason"`
	Raw           *wireRaw          `json:"raw"`
}

// wireMedia is the media block: on every media message, media_id null
// unless the file is available.
type wireMedia struct {
	MediaID     *string           `json:"media_id"`
	MediaStatus convo.MediaStatus `json:"media_status"`
	MimeType    *string           `json:"mime_type"`
	FileSize    *int64            `json:"file_size"`
	Filename    *string           `json:"filename"`
}

type wireReaction struct {
	Emoji     string          `json:"emoji"`
	Direction convo.Direction `json:"direction"`
	ReactedAt string          `json:"reacted_at"`
}

// wireRaw is the raw object: an internal-looking form of the content,
// outside the contract (docs/behaviour.md, "Messages"). It carries the
// sender kind and never a URL or a storage path.
type wireRaw struct {
	Content struct {
		Body     *string           `json:"body,omitempty"`
		FileSize *int64            `json:"file_size,omitempty"`
		MimeType *string           `json:"mime_type,omitempty"`
		Type     convo.MessageType `json:"type"`
	} `json:"content"`
	Origin            Sender `json:"origin"`
	ProviderMessageID string `json:"provider_message_id"`
}

func optTime(t *time.Time) *string {
	if t == nil {
		return nil
	}
	s := formatTime(*t)
	return &s
}

func (m *message) wire() wireMessage {
	wm := wireMessage{
		MessageID: m.id, Direction: m.direction, Type: m.typ, Status: m.status, Text: m.text,
		Reactions: make([]wireReaction, len(m.reactions)),
		SentAt:    optTime(m.sentAt), DeliveredAt: optTime(m.deliveredAt), ReadAt: optTime(m.readAt),
		FailureReason: m.failureReason,
	}
	for i, r := range m.reactions {
		wm.Reactions[i] = wireReaction{Emoji: r.emoji, Direction: r.direction, ReactedAt: formatTime(r.at)}
	}
	md := m.media
	if md != nil {
		wm.Media = &wireMedia{MediaStatus: md.status, MimeType: md.mime, FileSize: md.size, Filename: md.filename}
	}
	available := md != nil && md.status == convo.MediaAvailable
	if available {
		wm.Media.MediaID = &md.id
	}
	if m.typ != convo.MessageSystem && m.typ != convo.MessageUnsupported { // raw is null on these
		wm.Raw = &wireRaw{Origin: m.sender, ProviderMessageID: "pmid." + strings.ReplaceAll(m.id, "-", "")}
		wm.Raw.Content.Type, wm.Raw.Content.Body = m.typ, m.text
		if available {
			wm.Raw.Content.MimeType, wm.Raw.Content.FileSize = md.mime, md.size
		}
	}
	return wm
}

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

	// The page is copied out under the read lock, and encoded and written
	// after it, so a slow client never holds up writers.
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

	page := struct {
		Items      []wireMessage `json:"items"`
		NextCursor *string       `json:"next_cursor"`
		Window     struct {
			RecentWindowDays int    `json:"recent_window_days"`
			Since            string `json:"since"`
		} `json:"window"`
	}{Items: make([]wireMessage, 0, hi-start)}
	for i := hi - 1; i >= start; i-- {
		page.Items = append(page.Items, msgs[i].wire())
	}
	if start > lo && start < hi {
		last := msgs[start]
		next := s.encodeCursor(cursor{Kind: "m", Conv: conv.id, Since: since.UnixNano(), At: last.at.UnixNano(), ID: last.id})
		page.NextCursor = &next
	}
	s.mu.RUnlock()
	page.Window.RecentWindowDays, page.Window.Since = RecentWindowDays, formatTime(since)
	s.writeJSON(w, http.StatusOK, page)
}
