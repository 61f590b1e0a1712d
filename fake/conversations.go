package fake

import (
	"cmp"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	convo "github.com/convoapi/convo-go"
	"github.com/convoapi/convo-go/internal/phone"
)

// convFilters are the filters of GET /conversations, validated: an unknown
// value is INVALID_PARAM naming the parameter. They travel
// inside the cursor, so later pages apply the first page's filters.
type convFilters struct {
	Channel   string `json:"ch,omitempty"`
	ChannelID string `json:"cid,omitempty"`
	Status    string `json:"st,omitempty"`
	Assigned  *bool  `json:"as,omitempty"`
	// Since and Until are Unix milliseconds, the precision of the
	// parameters: any date the parameters take fits, where Unix
	// nanoseconds end in 1678 and 2262.
	Since      int64  `json:"sm,omitempty"`
	Until      int64  `json:"um,omitempty"`
	HasSince   bool   `json:"hs,omitempty"`
	HasUntil   bool   `json:"hu,omitempty"`
	Identifier string `json:"id,omitempty"`
	Phone      string `json:"ph,omitempty"` // normalized to digits
}

func parseConvFilters(q url.Values) (convFilters, *apiError) {
	var f convFilters
	if v, ok := q["channel"]; ok {
		switch convo.Channel(v[0]) {
		case convo.ChannelChatapp, convo.ChannelBotapp, convo.ChannelWebchat:
			f.Channel = v[0]
		default:
			return f, invalidParam("channel must be one of chatapp, botapp, webchat")
		}
	}
	f.ChannelID = q.Get("channel_id")
	f.Status = string(convo.ConversationOpen)
	if v, ok := q["status"]; ok {
		switch convo.ConversationStatus(v[0]) {
		case convo.ConversationOpen, convo.ConversationResolved, convo.ConversationArchived, "all":
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
		f.HasSince, f.Since = true, since.UnixMilli()
	}
	if hasUntil {
		f.HasUntil, f.Until = true, until.UnixMilli()
	}
	f.Identifier = q.Get("channel_identifier")
	if v, ok := q["phone"]; ok {
		norm, err := phone.Normalize(v[0])
		if err != nil {
			return f, phoneParamError("phone", err)
		}
		f.Phone = norm
	}
	return f, nil
}

// listCand is a conversation of a list page with its key as of the page.
type listCand struct {
	c   *conversation
	key time.Time
}

// matches applies the filters to c as it stood at asOf, and returns its list
// key then (a conversation without messages sorts by the createdAt it had
// before any message).
func (f *convFilters) matches(c *conversation, asOf uint64) (time.Time, bool) {
	if c.createdSeq > asOf || !f.matchesFields(c) {
		return time.Time{}, false
	}
	lma := c.lastMessageAsOf(asOf)
	if f.HasSince && (lma.IsZero() || lma.UnixMilli() < f.Since) ||
		f.HasUntil && (lma.IsZero() || lma.UnixMilli() >= f.Until) {
		return time.Time{}, false
	}
	if lma.IsZero() {
		return c.createdAt0, true
	}
	return lma, true
}

// matchesFields applies the filters that do not depend on time.
func (f *convFilters) matchesFields(c *conversation) bool {
	return (f.Channel == "" || string(c.account.channel) == f.Channel) &&
		(f.ChannelID == "" || c.account.id == f.ChannelID) &&
		(f.Status == "all" || string(c.status) == f.Status) &&
		(f.Assigned == nil || (c.assignedTo != "") == *f.Assigned) &&
		(f.Identifier == "" || c.contact.ident == f.Identifier) &&
		(f.Phone == "" || c.contact.phone == f.Phone)
}

// orderIndexAfter is the position in co.order of the first conversation
// strictly after a cursor's (key, id).
func (co *company) orderIndexAfter(at int64, id string) int {
	return sort.Search(len(co.order), func(i int) bool {
		c := co.order[i]
		k := c.orderKey.UnixNano()
		return k < at || k == at && c.ID < id
	})
}

// handleConversations serves GET /conversations, in the order of
// docs/behaviour.md ("Conversation list"). The cursor remembers the filters
// and the moment of the first page: later pages list the conversations as
// they stood then, so paging neither repeats nor skips.
func (s *Server) handleConversations(w http.ResponseWriter, r *http.Request, co *company, _ []string) {
	limit, f, cur, e := s.conversationQuery(r.URL.Query())
	if e != nil {
		s.writeError(w, r, e)
		return
	}
	var data []byte
	s.withStore(readOnly, func() *apiError {
		asOf := s.seq
		if cur != nil {
			asOf = cur.Seq
		}
		cands := co.listCandidates(&f, cur, asOf, limit)
		page := cands[:min(limit, len(cands))]
		out := struct {
			Items      []conversationWire `json:"items"`
			NextCursor *string            `json:"next_cursor"`
		}{Items: make([]conversationWire, 0, len(page))}
		times := make([][3]time.Time, len(page)) // one allocation for the page's times
		for i, c := range page {
			out.Items = append(out.Items, c.c.wire(&times[i]))
		}
		if len(cands) > limit {
			last := page[len(page)-1]
			co.noteCursor(asOf)
			nc := s.encodeCursor(cursor{Kind: "c", Seq: asOf, At: last.key.UnixNano(), ID: last.c.ID, Filters: &f})
			out.NextCursor = &nc
		}
		data = encode(out)
		return nil
	})
	s.writeEncoded(w, http.StatusOK, part{json: data})
}

// conversationQuery reads the limit and the filters of a list request; with
// a cursor, the filters are the cursor's (those sent are validated, then
// ignored).
func (s *Server) conversationQuery(q url.Values) (limit int, f convFilters, cur *cursor, e *apiError) {
	if limit, e = parseLimit(q, "limit", defaultConversationPageLim, 100); e != nil {
		return
	}
	if f, e = parseConvFilters(q); e != nil || !q.Has("cursor") {
		return
	}
	c, e := s.decodeCursor(q.Get("cursor"), "c")
	if e == nil && c.Filters == nil {
		e = invalidParam("cursor is invalid: pass the next_cursor of the previous page unchanged")
	}
	if e != nil {
		return 0, f, nil, e
	}
	return limit, *c.Filters, &c, nil
}

// listCandidates returns, in list order, up to limit+1 conversations
// matching f as they stood at asOf, after the cursor cur (nil: from the
// start). The caller holds s.mu.
//
// The order index has every conversation at its key as of now. Those whose
// key changed since asOf (a later page of an older listing) are skipped in
// the walk and placed by their key as of asOf instead.
func (co *company) listCandidates(f *convFilters, cur *cursor, asOf uint64, limit int) []listCand {
	co.ensureOrder()
	moved := co.movedSince(asOf)
	cands := make([]listCand, 0, limit+1)
	start := 0
	if cur != nil {
		start = co.orderIndexAfter(cur.At, cur.ID)
	}
	for _, c := range co.order[start:] {
		if len(cands) > limit {
			break
		}
		if key, ok := f.matches(c, asOf); ok && !moved[c] {
			cands = append(cands, listCand{c, key})
		}
	}
	if len(moved) == 0 {
		return cands
	}
	for c := range moved {
		key, ok := f.matches(c, asOf)
		// strictly after the cursor in (key desc, id desc)
		if ok && (cur == nil || key.UnixNano() < cur.At || key.UnixNano() == cur.At && c.ID < cur.ID) {
			cands = append(cands, listCand{c, key})
		}
	}
	slices.SortFunc(cands, func(a, b listCand) int { // most recent key first, ties by id descending
		return cmp.Or(b.key.Compare(a.key), strings.Compare(b.c.ID, a.c.ID))
	})
	return cands
}

// conversationWire is a conversation as GET /conversations lists it.
type conversationWire struct {
	ID                string                   `json:"id"`
	ContactID         string                   `json:"contact_id"`
	Channel           convo.Channel            `json:"channel"`
	ChannelAccountID  string                   `json:"channel_account_id"`
	ChannelIdentifier string                   `json:"channel_identifier"`
	Status            convo.ConversationStatus `json:"status"`
	Assigned          bool                     `json:"assigned"`
	UnreadCount       int                      `json:"unread_count"`
	LastInboundAt     *stamp                   `json:"last_inbound_at"`
	LastMessageAt     *stamp                   `json:"last_message_at"`
	CreatedAt         *stamp                   `json:"created_at"`
}

// wire is the conversation as the API lists it, its times kept in times.
// The caller holds the store's lock.
func (c *conversation) wire(times *[3]time.Time) conversationWire {
	times[0] = c.createdAt
	w := conversationWire{ID: c.ID, ContactID: c.contact.id, Channel: c.account.channel,
		ChannelAccountID: c.account.id, ChannelIdentifier: c.contact.ident, Status: c.status,
		Assigned: c.assignedTo != "", UnreadCount: c.unreadCount(), CreatedAt: (*stamp)(&times[0])}
	if c.lastInbound != nil {
		times[1] = c.lastInbound.time()
		w.LastInboundAt = (*stamp)(&times[1])
	}
	if !c.lastMessageAt.IsZero() {
		times[2] = c.lastMessageAt
		w.LastMessageAt = (*stamp)(&times[2])
	}
	return w
}

// noteCursor records that a cursor lists the conversations as of seq, so
// that what they were then is kept (noteLastMessageAt). It runs under the
// store's read lock, beside other readers.
func (co *company) noteCursor(seq uint64) {
	for {
		cur := co.cursorSeq.Load()
		if seq <= cur || co.cursorSeq.CompareAndSwap(cur, seq) {
			return
		}
	}
}
