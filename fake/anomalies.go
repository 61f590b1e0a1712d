package fake

import (
	"container/heap"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Anomaly bucket names (spec §2.6).
const (
	BucketUnanswered     = "unanswered"
	BucketNeverEngaged   = "never_engaged"
	BucketUnassigned     = "unassigned"
	BucketAutomationOnly = "automation_only"
)

// Bounds and defaults of the anomalies query (spec §8).
const (
	DefaultThresholdHours = 4
	DefaultAnomalyLimit   = 20
	maxAnomalyItems       = 100
	fixedCeilingHours     = 24 // channels without a service window (§4.4 rule 2)
)

var (
	validBuckets = []string{BucketUnanswered, BucketNeverEngaged, BucketUnassigned, BucketAutomationOnly}
	optInBuckets = []string{BucketUnassigned, BucketAutomationOnly}
)

type anomalyCacheKey struct {
	bucket    string
	threshold int
}

// anomalyResult is one bucket as computed at one instant: the count and the
// worst items (at most 100, worst first).
type anomalyResult struct {
	at    time.Time
	count int
	items []anomalyItem
}

type anomalyItem struct {
	ConversationID   string     `json:"conversation_id"`
	ContactID        string     `json:"contact_id"`
	Channel          string     `json:"channel"`
	ChannelAccountID string     `json:"channel_account_id"`
	LastInboundAt    string     `json:"last_inbound_at"`
	LastMessageAt    string     `json:"last_message_at"`
	WaitingHours     oneDecimal `json:"waiting_hours"`
	Assigned         bool       `json:"assigned"`
	UnreadCount      int        `json:"unread_count"`
}

// oneDecimal renders a number with exactly one decimal (spec §2.6: 5.0, 12.3).
type oneDecimal float64

// MarshalJSON implements json.Marshaler.
func (d oneDecimal) MarshalJSON() ([]byte, error) {
	return strconv.AppendFloat(nil, float64(d), 'f', 1, 64), nil
}

// ceilingHours is the anomaly ceiling of a channel (spec §4.4 rules 1–2): the
// service window of the channel (24 hours for chatapp, spec §2.2), else a
// fixed 24 hours.
func ceilingHours(channel string) int {
	if h := capabilitiesFor(channel).SessionWindowHours; h != nil {
		return *h
	}
	return fixedCeilingHours
}

// handleAnomalies serves GET /conversations/anomalies (spec §4.4, §2.6, D4,
// D27, D28).
//
// Only open conversations are considered, for every bucket. A conversation
// is in the window when threshold_hours <= now - last inbound <= the
// channel's ceiling (both ends inclusive). unanswered: in the window, and no
// outbound message from an agent, the phone app or automation went out after
// the last inbound (a reply with status failed did not go out; a queued one
// counts, it is on its way). unassigned: in the window, no agent. automation_only: in the
// window, replied to, every reply since the last inbound from automation.
// never_engaged: open, no inbound message ever (count only).
//
// Each bucket is cached per company and per threshold for the cache TTL on
// the server's clock; waiting_hours are those of the computation.
func (s *Server) handleAnomalies(w http.ResponseWriter, r *http.Request, co *company, _ []string) {
	q := r.URL.Query()
	want := []string{BucketUnanswered, BucketNeverEngaged}
	// include is a comma list in one parameter (a repeated include is
	// refused before this point); spaces around names and empty names are
	// ignored, the two always-returned buckets may be named (they are valid
	// names, spec §4.4 rule 5).
	for _, v := range q["include"] {
		for _, name := range strings.Split(v, ",") {
			name = strings.TrimSpace(name)
			switch name {
			case "", BucketUnanswered, BucketNeverEngaged:
			case BucketUnassigned, BucketAutomationOnly:
				if !contains(want, name) {
					want = append(want, name)
				}
			default:
				e := errf(http.StatusBadRequest, CodeInvalidBucket, "Unknown bucket: "+name+".")
				e.details = map[string]any{"valid_buckets": validBuckets, "opt_in": optInBuckets}
				s.writeError(w, r, e)
				return
			}
		}
	}
	threshold, e := parseLimit(q, "threshold_hours", DefaultThresholdHours, 24)
	if e != nil {
		e.message = "threshold_hours must be an integer from 1 to 24"
		s.writeError(w, r, e)
		return
	}
	limit, e := parseLimit(q, "limit", DefaultAnomalyLimit, maxAnomalyItems)
	if e != nil {
		s.writeError(w, r, e)
		return
	}
	now := s.clock.Now()

	s.mu.Lock()
	results := map[string]*anomalyResult{}
	var missing []string
	for _, b := range want {
		key := anomalyCacheKey{b, threshold}
		if res := co.anomalyCache[key]; res != nil && s.cfg.anomalyTTL > 0 && now.Sub(res.at) < s.cfg.anomalyTTL && !now.Before(res.at) {
			results[b] = res
		} else {
			missing = append(missing, b)
		}
	}
	if len(missing) > 0 {
		for b, res := range computeAnomalies(co, now, threshold, missing) {
			results[b] = res
			if s.cfg.anomalyTTL > 0 {
				co.anomalyCache[anomalyCacheKey{b, threshold}] = res
			}
		}
	}
	s.mu.Unlock()

	type bucketOut struct {
		Count int           `json:"count"`
		Items []anomalyItem `json:"items"`
	}
	buckets := map[string]any{}
	for _, b := range want {
		res := results[b]
		if b == BucketNeverEngaged {
			buckets[b] = struct {
				Count int `json:"count"`
			}{res.count}
			continue
		}
		buckets[b] = bucketOut{Count: res.count, Items: res.items[:min(limit, len(res.items))]}
	}
	ceilings := map[string]int{Chatapp: ceilingHours(Chatapp), "sms": ceilingHours("sms"), Botapp: ceilingHours(Botapp), Webchat: ceilingHours(Webchat)}
	s.writeJSON(w, r, http.StatusOK, map[string]any{
		"window":  map[string]any{"threshold_hours": threshold, "ceiling_hours_by_channel": ceilings},
		"buckets": buckets,
	})
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// worstHeap keeps the maxAnomalyItems worst conversations of a bucket; its
// root is the least bad kept, so a worse one replaces it.
type worstHeap []*conversation

func worse(a, b *conversation) bool { // a waits longer than b (D28)
	if !a.lastInbound.at.Equal(b.lastInbound.at) {
		return a.lastInbound.at.Before(b.lastInbound.at)
	}
	return a.id < b.id
}

func (h worstHeap) Len() int           { return len(h) }
func (h worstHeap) Less(i, j int) bool { return worse(h[j], h[i]) }
func (h worstHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *worstHeap) Push(x any)        { *h = append(*h, x.(*conversation)) }
func (h *worstHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

type bucketAcc struct {
	count int
	worst worstHeap
}

func (a *bucketAcc) add(c *conversation) {
	a.count++
	if len(a.worst) < maxAnomalyItems {
		heap.Push(&a.worst, c)
		return
	}
	if worse(c, a.worst[0]) {
		a.worst[0] = c
		heap.Fix(&a.worst, 0)
	}
}

// computeAnomalies computes the given buckets in one pass over the company's
// conversations: O(n log 100).
func computeAnomalies(co *company, now time.Time, thresholdHours int, buckets []string) map[string]*anomalyResult {
	acc := map[string]*bucketAcc{}
	for _, b := range buckets {
		acc[b] = &bucketAcc{}
	}
	threshold := time.Duration(thresholdHours) * time.Hour
	ceilings := map[string]time.Duration{}
	for _, ch := range []string{Chatapp, Botapp, Webchat} {
		ceilings[ch] = time.Duration(ceilingHours(ch)) * time.Hour
	}
	unanswered, never, unassigned, autoOnly := acc[BucketUnanswered], acc[BucketNeverEngaged], acc[BucketUnassigned], acc[BucketAutomationOnly]
	for _, c := range co.conversations {
		if c.status != StatusOpen {
			continue
		}
		if c.lastInbound == nil {
			if never != nil {
				never.count++
			}
			continue
		}
		waiting := now.Sub(c.lastInbound.at)
		if waiting < threshold || waiting > ceilings[c.account.channel] {
			continue
		}
		if unanswered != nil && c.repliesAfter == 0 {
			unanswered.add(c)
		}
		if unassigned != nil && c.assignedTo == "" {
			unassigned.add(c)
		}
		if autoOnly != nil && c.repliesAfter > 0 && c.humanAfter == 0 {
			autoOnly.add(c)
		}
	}
	out := map[string]*anomalyResult{}
	for b, a := range acc {
		res := &anomalyResult{at: now, count: a.count, items: make([]anomalyItem, len(a.worst))}
		for i := len(a.worst) - 1; i >= 0; i-- { // popping gives the least bad first
			c := heap.Pop(&a.worst).(*conversation)
			waiting := now.Sub(c.lastInbound.at).Hours()
			res.items[i] = anomalyItem{
				ConversationID: c.id, ContactID: c.contact.id, Channel: c.account.channel, ChannelAccountID: c.account.id,
				LastInboundAt: formatTime(c.lastInbound.at), LastMessageAt: formatTime(c.lastMessageAt),
				WaitingHours: oneDecimal(float64(int64(waiting*10+0.5)) / 10), Assigned: c.assignedTo != "", UnreadCount: c.unreadCount(),
			}
		}
		out[b] = res
	}
	return out
}
