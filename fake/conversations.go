package fake

import (
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"time"

	"github.com/convoapi/convo-go/internal/phone"
)

// wireConversation is a conversation item of the list (D6).
type wireConversation struct {
	ID                string  `json:"id"`
	ContactID         string  `json:"contact_id"`
	Channel           string  `json:"channel"`
	ChannelAccountID  string  `json:"channel_account_id"`
	ChannelIdentifier string  `json:"channel_identifier"`
	Status            string  `json:"status"`
	Assigned          bool    `json:"assigned"`
	UnreadCount       int     `json:"unread_count"`
	LastInboundAt     *string `json:"last_inbound_at"`
	LastMessageAt     *string `json:"last_message_at"`
	CreatedAt         string  `json:"created_at"`
}

func (c *conversation) wire() wireConversation {
	wc := wireConversation{
		ID: c.id, ContactID: c.contact.id, Channel: c.account.channel, ChannelAccountID: c.account.id,
		ChannelIdentifier: c.contact.ident, Status: c.status, Assigned: c.assignedTo != "",
		UnreadCount: c.unreadCount(), CreatedAt: formatTime(c.createdAt),
	}
	if c.lastInbound != nil {
		wc.LastInboundAt = optTime(&c.lastInbound.at)
	}
	if !c.lastMessageAt.IsZero() {
		wc.LastMessageAt = optTime(&c.lastMessageAt)
	}
	return wc
}

// convFilters are the filters of spec §4.3, validated (D32). They travel
// inside the cursor, so later pages apply the first page's filters.
type convFilters struct {
	Channel    string `json:"ch,omitempty"`
	ChannelID  string `json:"cid,omitempty"`
	Status     string `json:"st,omitempty"`
	Assigned   *bool  `json:"as,omitempty"`
	Since      int64  `json:"si,omitempty"` // Unix ns; 0: none
	Until      int64  `json:"un,omitempty"`
	HasSince   bool   `json:"hs,omitempty"`
	HasUntil   bool   `json:"hu,omitempty"`
	Identifier string `json:"id,omitempty"`
	Phone      string `json:"ph,omitempty"` // normalized (D8)
}

func parseConvFilters(q url.Values) (convFilters, *apiError) {
	var f convFilters
	if v, ok := q["channel"]; ok {
		switch v[0] {
		case Chatapp, Botapp, Webchat:
			f.Channel = v[0]
		default:
			return f, invalidParam("channel must be one of chatapp, botapp, webchat")
		}
	}
	f.ChannelID = q.Get("channel_id")
	f.Status = StatusOpen
	if v, ok := q["status"]; ok {
		switch v[0] {
		case StatusOpen, StatusResolved, StatusArchived, "all":
			f.Status = v[0]
		default:
			return f, invalidParam("status must be one of open, resolved, archived, all")
		}
	}
	if v, ok := q["assigned"]; ok {
		b, err := strconv.ParseBool(v[0])
		if err != nil || (v[0] != "true" && v[0] != "false") {
			return f, invalidParam("assigned must be true or false")
		}
		f.Assigned = &b
	}
	since, hasSince, e := parseTime(q, "since")
	if e != nil {
		return f, e
	}
	until, hasUntil, e := parseTime(q, "until")
	if e != nil {
		return f, e
	}
	if hasSince {
		f.HasSince, f.Since = true, since.UnixNano()
	}
	if hasUntil {
		f.HasUntil, f.Until = true, until.UnixNano()
	}
	f.Identifier = q.Get("channel_identifier")
	if v, ok := q["phone"]; ok {
		norm, err := phone.Normalize(v[0])
		if err != nil {
			return f, invalidParam("phone must have 8 to 15 digits")
		}
		f.Phone = norm
	}
	return f, nil
}

// handleConversations serves GET /conversations (spec §4.3, D5–D8, D32).
//
// Order: most recent last_message_at first (a conversation without messages
// sorts by its created_at), ties by id descending. since (inclusive) and
// until (exclusive) compare with last_message_at (D7); a conversation without
// messages never matches them. The cursor remembers the filters and the
// moment of the first page: later pages list the conversations as they
// stood then (a conversation that receives a message meanwhile keeps its
// place), so paging neither repeats nor skips (D29).
func (s *Server) handleConversations(w http.ResponseWriter, r *http.Request, co *company, _ []string) {
	q := r.URL.Query()
	limit, e := parseLimit(q, "limit", defaultConversationPageLim, 100)
	if e != nil {
		s.writeError(w, r, e)
		return
	}
	f, e := parseConvFilters(q)
	if e != nil {
		s.writeError(w, r, e)
		return
	}
	var cur *cursor
	if q.Has("cursor") {
		c, e := s.decodeCursor(q.Get("cursor"), "c")
		if e != nil || c.Filters == nil {
			if e == nil {
				e = invalidParam("cursor is invalid: pass the next_cursor of the previous page unchanged")
			}
			s.writeError(w, r, e)
			return
		}
		cur, f = &c, *c.Filters
	}

	s.mu.RLock()
	asOf := s.seq
	if cur != nil {
		asOf = cur.Seq
	}
	type cand struct {
		c   *conversation
		key time.Time
	}
	var cands []cand
	for _, c := range co.conversations {
		if c.createdSeq > asOf {
			continue
		}
		if f.Channel != "" && c.account.channel != f.Channel ||
			f.ChannelID != "" && c.account.id != f.ChannelID ||
			f.Status != "all" && c.status != f.Status ||
			f.Assigned != nil && (c.assignedTo != "") != *f.Assigned ||
			f.Identifier != "" && c.contact.ident != f.Identifier ||
			f.Phone != "" && c.contact.phone != f.Phone {
			continue
		}
		lma := c.lastMessageAsOf(asOf)
		if f.HasSince && (lma.IsZero() || lma.UnixNano() < f.Since) ||
			f.HasUntil && (lma.IsZero() || lma.UnixNano() >= f.Until) {
			continue
		}
		key := lma
		if key.IsZero() { // no message as of the first page: createdAt as it was then
			key = c.createdAt0
		}
		if cur != nil { // strictly after the cursor in (key desc, id desc)
			k := key.UnixNano()
			if k > cur.At || k == cur.At && c.id >= cur.ID {
				continue
			}
		}
		cands = append(cands, cand{c, key})
	}
	sort.Slice(cands, func(i, j int) bool {
		if !cands[i].key.Equal(cands[j].key) {
			return cands[i].key.After(cands[j].key)
		}
		return cands[i].c.id > cands[j].c.id
	})
	page := cands[:min(limit, len(cands))]
	out := struct {
		Items      []wireConversation `json:"items"`
		NextCursor *string            `json:"next_cursor"`
	}{Items: make([]wireConversation, 0, len(page))}
	for _, c := range page {
		out.Items = append(out.Items, c.c.wire())
	}
	if len(cands) > limit {
		last := page[len(page)-1]
		fc := f
		nc := s.encodeCursor(cursor{Kind: "c", Seq: asOf, At: last.key.UnixNano(), ID: last.c.id, Filters: &fc})
		out.NextCursor = &nc
	}
	s.mu.RUnlock()
	s.writeJSON(w, r, http.StatusOK, out)
}
