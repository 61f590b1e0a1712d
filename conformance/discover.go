package conformance

import (
	"cmp"
	"fmt"
	"slices"
	"time"
)

// How much of an account's data a run reads to discover what it checks
// with: enough for every check on a small account, bounded on a large one.
const (
	discoverPages         = 5  // pages of 100 conversations
	discoverConversations = 10 // conversations whose messages are read
	pagingPages           = 8  // pages a paging check follows at most
)

// discovered is what the run learnt of the server's data.
type discovered struct {
	keyRefused  bool
	unreachable string
	now         time.Time // the first envelope's timestamp: the server's clock

	channelsEx *exchange
	channels   []map[string]any

	convs         []map[string]any // status=all, in the order listed
	convsComplete bool             // every page was read

	msgEx    map[string]*exchange        // conversation id -> its message read
	messages map[string][]map[string]any // conversation id -> the items of its read
	msgConvs []string                    // the conversations read, in order
	window   time.Time                   // window.since of the first message read

	lookup       map[string]any // the contact found by contacts/lookup
	writeContact string         // the id of the contact a write run made

	anomalyEx *exchange // the default anomaly report
	optInEx   *exchange // the report with both opt-in buckets

	mediaConv string         // a conversation with a message with available media
	mediaMsg  map[string]any // that message

	stamps *stampLog // the layout of every date-time the checks read
}

// stampLog notes the date-times the checks read that are not in the
// service's layout (three fractional digits, Z), for format/timestamps.
type stampLog struct {
	seen  int
	other []string // "check: place: value", the first few
	count int      // how many are not in the layout
}

// note records one date-time read by check id at place.
func (l *stampLog) note(id, place, value string, inLayout bool) {
	if l == nil {
		return
	}
	l.seen++
	if inLayout {
		return
	}
	l.count++
	if len(l.other) < 5 {
		l.other = append(l.other, fmt.Sprintf("%s: %s %q", id, place, value))
	}
}

func str(m map[string]any, key string) string {
	s, _ := m[key].(string)
	return s
}

func stampOf(m map[string]any, key string) time.Time {
	t, _ := time.Parse(time.RFC3339Nano, str(m, key))
	return t
}

// convsWhere are the discovered conversations for which keep is true.
func (d *discovered) convsWhere(keep func(map[string]any) bool) []map[string]any {
	var out []map[string]any
	for _, cv := range d.convs {
		if keep(cv) {
			out = append(out, cv)
		}
	}
	return out
}

// ids are the id values of items (key "id" or "message_id").
func ids(items []map[string]any, key string) []string {
	out := make([]string, len(items))
	for i, it := range items {
		out[i] = str(it, key)
	}
	return out
}

// objects keeps the objects of a JSON array.
func objects(a []any) []map[string]any {
	out := make([]map[string]any, 0, len(a))
	for _, v := range a {
		if m, ok := v.(map[string]any); ok {
			out = append(out, m)
		}
	}
	return out
}

// conversationWithMost is the read conversation with the most messages.
func (d *discovered) conversationWithMost() (string, int) {
	best, n := "", -1
	for _, id := range d.msgConvs {
		if len(d.messages[id]) > n {
			best, n = id, len(d.messages[id])
		}
	}
	return best, n
}

// sortOrder is the conversation list's order: the most recent
// last_message_at first (created_at without messages), ties by id
// descending.
func conversationOrder(a, b map[string]any) int {
	ka, kb := activity(a), activity(b)
	if c := kb.Compare(ka); c != 0 {
		return c
	}
	return cmp.Compare(str(b, "id"), str(a, "id"))
}

func activity(cv map[string]any) time.Time {
	if t := stampOf(cv, "last_message_at"); !t.IsZero() {
		return t
	}
	return stampOf(cv, "created_at")
}

// sortedIDs is a sorted copy of ids.
func sortedIDs(s []string) []string {
	out := slices.Clone(s)
	slices.Sort(out)
	return out
}
