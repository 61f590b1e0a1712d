package fake

import (
	"container/heap"
	"math"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	convo "github.com/convoapi/convo-go"
)

// Anomaly bucket names of GET /conversations/anomalies.
const (
	BucketUnanswered     = "unanswered"
	BucketNeverEngaged   = "never_engaged"
	BucketUnassigned     = "unassigned"
	BucketAutomationOnly = "automation_only"
)

// Defaults of the query of GET /conversations/anomalies.
const (
	DefaultThresholdHours = 4
	DefaultAnomalyLimit   = 20
	maxAnomalyItems       = 100
	fixedCeilingHours     = 24 // channels without a service window
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
// worst items (at most 100, worst first). A cached result is never changed.
type anomalyResult struct {
	at    time.Time
	count int
	items []anomalyItem
}

// anomalyItem is an item of a bucket: convo.AnomalyItem's fields with times
// written as every time of the API is (formatTime).
type anomalyItem struct {
	ConversationID   string        `json:"conversation_id"`
	ContactID        string        `json:"contact_id"`
	Channel          convo.Channel `json:"channel"`
	ChannelAccountID string        `json:"channel_account_id"`
	LastInboundAt    string        `json:"last_inbound_at"`
	LastMessageAt    string        `json:"last_message_at"`
	WaitingHours     oneDecimal    `json:"waiting_hours"`
	Assigned         bool          `json:"assigned"`
	UnreadCount      int           `json:"unread_count"`
}

// oneDecimal renders a number with exactly one decimal (5.0, 12.3).
type oneDecimal float64

// MarshalJSON implements json.Marshaler.
func (d oneDecimal) MarshalJSON() ([]byte, error) {
	return strconv.AppendFloat(nil, float64(d), 'f', 1, 64), nil
}

// ceilingHours is the anomaly ceiling of a channel: the service window of
// the channel (24 hours for chatapp), else a fixed 24 hours.
func ceilingHours(channel convo.Channel) int {
	if h := capabilitiesFor(channel).SessionWindowHours; h != nil {
		return *h
	}
	return fixedCeilingHours
}

// handleAnomalies serves GET /conversations/anomalies: the buckets, query
// parameters, windows and cache of docs/behaviour.md ("Anomaly report" and
// what the fake decides on its own), items worst first. A conversation is in
// the window when threshold_hours <= now - last inbound <= the channel's
// ceiling; a reply with status failed did not go out, a queued one did.
func (s *Server) handleAnomalies(w http.ResponseWriter, r *http.Request, co *company, _ []string) {
	q := r.URL.Query()
	want := []string{BucketUnanswered, BucketNeverEngaged}
	// include is a comma list in one parameter (a repeated include is
	// refused before this point); spaces around names and empty names are
	// ignored, the two always-returned buckets may be named (they are valid
	// names).
	for _, v := range q["include"] {
		for _, name := range strings.Split(v, ",") {
			name = strings.TrimSpace(name)
			switch name {
			case "", BucketUnanswered, BucketNeverEngaged:
			case BucketUnassigned, BucketAutomationOnly:
				if !slices.Contains(want, name) {
					want = append(want, name)
				}
			default:
				e := errf(http.StatusBadRequest, convo.CodeInvalidBucket, "Unknown bucket: "+name+".")
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

	// A cached report is served under the read lock; only a miss takes the
	// write lock, and looks again, since another call may have filled it.
	var (
		results map[string]*anomalyResult
		missing []string
	)
	s.withStore(readOnly, func() *apiError {
		results, missing = co.cachedAnomalies(want, threshold, now, s.cfg.anomalyTTL)
		return nil
	})
	if len(missing) > 0 {
		s.withStore(readWrite, func() *apiError {
			results, missing = co.cachedAnomalies(want, threshold, now, s.cfg.anomalyTTL)
			if len(missing) == 0 { // another call filled it meanwhile
				return nil
			}
			for b, res := range computeAnomalies(co, now, threshold, missing) {
				results[b] = res
				if s.cfg.anomalyTTL > 0 {
					co.anomalyCache[anomalyCacheKey{b, threshold}] = res
				}
			}
			return nil
		})
	}
	s.writeEncoded(w, http.StatusOK, part{json: co.encodedReport(want, results, threshold, limit, s.cfg.anomalyTTL > 0)})
}

// encodedReport is a report in JSON. The company keeps its latest report
// made of cached results, encoded once, and serves it again while the
// query and those results are the same.
func (co *company) encodedReport(want []string, results map[string]*anomalyResult, threshold, limit int, keep bool) []byte {
	key := reportKey{strings.Join(want, ","), threshold, limit}
	co.reportMu.Lock()
	defer co.reportMu.Unlock()
	if r := co.report; r != nil && r.key == key && slices.EqualFunc(want, r.from, func(b string, res *anomalyResult) bool { return results[b] == res }) {
		return r.data
	}
	data := encode(anomalyReport(want, results, threshold, limit))
	if keep {
		co.report = &encodedReport{key: key, data: data}
		for _, b := range want {
			co.report.from = append(co.report.from, results[b])
		}
	}
	return data
}

// reportKey is a report's query: its buckets, threshold and limit.
type reportKey struct {
	want             string
	threshold, limit int
}

// encodedReport is a report's JSON, its query and the results it was made of.
type encodedReport struct {
	key  reportKey
	from []*anomalyResult
	data []byte
}

// anomalyBucket is a bucket of the report: never_engaged has a count only,
// the others a count and items (nil Items: the key is left out).
type anomalyBucket struct {
	Count int            `json:"count"`
	Items *[]anomalyItem `json:"items,omitempty"`
}

// anomalyReport is the data of GET /conversations/anomalies: the buckets
// asked for, each with its first limit items, and the window applied.
func anomalyReport(want []string, results map[string]*anomalyResult, threshold, limit int) any {
	buckets := make(map[string]anomalyBucket, len(want))
	for _, name := range want {
		res := results[name]
		b := anomalyBucket{Count: res.count}
		if name != BucketNeverEngaged {
			items := res.items[:min(limit, len(res.items))]
			b.Items = &items
		}
		buckets[name] = b
	}
	ceilings := map[convo.Channel]int{}
	for _, ch := range []convo.Channel{convo.ChannelChatapp, convo.ChannelBotapp, convo.ChannelWebchat, convo.ChannelSMS} {
		ceilings[ch] = ceilingHours(ch)
	}
	type window struct {
		CeilingHoursByChannel map[convo.Channel]int `json:"ceiling_hours_by_channel"`
		ThresholdHours        int                   `json:"threshold_hours"`
	}
	return struct {
		Buckets map[string]anomalyBucket `json:"buckets"`
		Window  window                   `json:"window"`
	}{buckets, window{ceilings, threshold}}
}

// cachedAnomalies returns the cached results of the buckets still fresh at
// now, and the buckets to compute. The caller holds s.mu (read or write).
func (co *company) cachedAnomalies(want []string, threshold int, now time.Time, ttl time.Duration) (map[string]*anomalyResult, []string) {
	results := make(map[string]*anomalyResult, len(want))
	var missing []string
	for _, b := range want {
		res := co.anomalyCache[anomalyCacheKey{b, threshold}]
		if res != nil && ttl > 0 && now.Sub(res.at) < ttl && !now.Before(res.at) {
			results[b] = res
		} else {
			missing = append(missing, b)
		}
	}
	return results, missing
}

// worstHeap keeps the maxAnomalyItems worst conversations of a bucket; its
// root is the least bad kept, so a worse one replaces it.
type worstHeap []*conversation

func worse(a, b *conversation) bool { // a waits longer than b; ties by conversation id
	if a.lastInboundAt != b.lastInboundAt {
		return a.lastInboundAt < b.lastInboundAt
	}
	return a.ID < b.ID
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

// anomalyWindow is the window of a report: the threshold and the ceiling
// of each channel that has conversations.
type anomalyWindow struct {
	threshold                time.Duration
	chatapp, botapp, webchat time.Duration
}

func newAnomalyWindow(thresholdHours int) anomalyWindow {
	hours := func(ch convo.Channel) time.Duration { return time.Duration(ceilingHours(ch)) * time.Hour }
	return anomalyWindow{threshold: time.Duration(thresholdHours) * time.Hour,
		chatapp: hours(convo.ChannelChatapp), botapp: hours(convo.ChannelBotapp), webchat: hours(convo.ChannelWebchat)}
}

// ceiling is the ceiling of a channel (a switch, not a map: the report asks
// it of every conversation).
func (w anomalyWindow) ceiling(ch convo.Channel) time.Duration {
	switch ch {
	case convo.ChannelChatapp:
		return w.chatapp
	case convo.ChannelBotapp:
		return w.botapp
	case convo.ChannelWebchat:
		return w.webchat
	}
	return 0
}

// waited is the time from at to now (Unix nanoseconds), as time.Time's Sub
// gives it: held to the range of a Duration.
func waited(now, at int64) time.Duration {
	d := now - at
	switch {
	case now >= at && d < 0:
		return math.MaxInt64
	case now < at && d >= 0:
		return math.MinInt64
	}
	return time.Duration(d)
}

// bucketSet is a set of buckets: bit i is validBuckets[i].
type bucketSet uint8

func bucketBit(name string) bucketSet { return 1 << slices.Index(validBuckets, name) }

// names lists the buckets of the set, in the order of validBuckets.
func (set bucketSet) names() []string {
	var out []string
	for i, b := range validBuckets {
		if set&(1<<i) != 0 {
			out = append(out, b)
		}
	}
	return out
}

var (
	inUnanswered     = bucketBit(BucketUnanswered)
	inNeverEngaged   = bucketBit(BucketNeverEngaged)
	inUnassigned     = bucketBit(BucketUnassigned)
	inAutomationOnly = bucketBit(BucketAutomationOnly)
)

// bucketsOf is the one rule of the buckets: those c is in at now. Only
// open conversations count; never_engaged holds those whose contact never
// wrote; the others, those whose last inbound message is in the window, by
// what went out after it.
func (w anomalyWindow) bucketsOf(c *conversation, now time.Time) bucketSet {
	if c.status != convo.ConversationOpen {
		return 0
	}
	if c.lastInbound == nil {
		return inNeverEngaged
	}
	if waiting := waited(nanos(now), c.lastInboundAt); waiting < w.threshold || waiting > w.ceiling(c.account.channel) {
		return 0
	}
	var in bucketSet
	if c.repliesAfter == 0 {
		in |= inUnanswered
	}
	if c.assignedTo == "" {
		in |= inUnassigned
	}
	if c.repliesAfter > 0 && c.humanAfter == 0 {
		in |= inAutomationOnly
	}
	return in
}

// computeAnomalies computes the given buckets in one pass over the company's
// conversations: O(n log 100), with no allocation per conversation.
func computeAnomalies(co *company, now time.Time, thresholdHours int, buckets []string) map[string]*anomalyResult {
	var acc [4]*bucketAcc // by index in validBuckets
	for _, b := range buckets {
		acc[slices.Index(validBuckets, b)] = &bucketAcc{}
	}
	never := acc[slices.Index(validBuckets, BucketNeverEngaged)]
	w := newAnomalyWindow(thresholdHours)
	for _, c := range co.conversations {
		in := w.bucketsOf(c, now)
		if in == 0 {
			continue
		}
		if in == inNeverEngaged {
			if never != nil {
				never.count++ // a count only: no items
			}
			continue
		}
		for i, a := range acc {
			if a != nil && in&(1<<i) != 0 {
				a.add(c)
			}
		}
	}
	out := map[string]*anomalyResult{}
	for i, a := range acc {
		if a == nil {
			continue
		}
		b := validBuckets[i]
		res := &anomalyResult{at: now, count: a.count, items: make([]anomalyItem, len(a.worst))}
		for i := len(a.worst) - 1; i >= 0; i-- { // popping gives the least bad first
			c := heap.Pop(&a.worst).(*conversation)
			waiting := now.Sub(c.lastInbound.time()).Hours()
			res.items[i] = anomalyItem{
				ConversationID: c.ID, ContactID: c.contact.id, Channel: c.account.channel, ChannelAccountID: c.account.id,
				LastInboundAt: formatTime(c.lastInbound.time()), LastMessageAt: formatTime(c.lastMessageAt),
				WaitingHours: oneDecimal(float64(int64(waiting*10+0.5)) / 10), Assigned: c.assignedTo != "", UnreadCount: c.unreadCount(),
			}
		}
		out[b] = res
	}
	return out
}
