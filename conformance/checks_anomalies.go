package conformance

import (
	"context"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"time"
)

const anomaliesPath = "/conversations/anomalies"

// cacheLag is the most a cached anomaly report may be older than its
// answer: the service keeps it "a few minutes".
const cacheLag = 15 * time.Minute

func anomalyChecks(full bool) []*check {
	checks := []*check{
		{id: "anomalies/report", basis: BasisSpec, spec: "`unassigned` and `automation_only` are returned only when requested.", fn: checkAnomalyReport,
			title: "GET /conversations/anomalies: window (threshold, ceilings per channel), unanswered with count and items, never_engaged with a count only, no opt-in bucket unasked"},
		{id: "anomalies/items", basis: BasisSpec, spec: "A conversation enters a bucket only when its last inbound message lies between `threshold_hours` ago and the ceiling of its channel's service window.", fn: checkAnomalyItems,
			title: "anomaly items: their fields, waiting_hours between the threshold and the channel's ceiling, agreeing with last_inbound_at"},
		{id: "anomalies/order", basis: BasisDecision, fn: checkAnomalyOrder,
			title: "anomaly items are worst first: longest waiting_hours, ties by conversation_id"},
		{id: "anomalies/defaults", basis: BasisDecision, fn: checkAnomalyDefaults,
			title: "the default threshold is 4 hours and the default item count at most 20"},
		{id: "anomalies/no-pagination", basis: BasisSpec, spec: "There is no pagination and the number of items is capped.", fn: checkNoPagination,
			title: "the anomaly report has no cursor or page anywhere, and no bucket lists more than 100 items"},
	}
	more := []*check{
		{id: "anomalies/opt-in", basis: BasisDecision, fn: checkAnomalyOptIn,
			title: "include=unassigned,automation_only adds both buckets (count and items); unassigned items are not assigned"},
		{id: "anomalies/unknown-bucket", basis: BasisDecision, fn: checkUnknownBucket,
			title: "an unknown bucket: 400 INVALID_BUCKET with details.valid_buckets and details.opt_in"},
		{id: "anomalies/threshold-bounds", basis: BasisDecision, fn: checkThresholdBounds,
			title: "threshold_hours 1 and 24 are applied; 0 and 25 are 400 INVALID_PARAM"},
		{id: "anomalies/limit-bounds", basis: BasisDecision, fn: checkAnomalyLimit,
			title: "limit=1 gives at most one item per bucket; 0 and 101 are 400 INVALID_PARAM"},
		{id: "anomalies/item-cap", basis: BasisDecision, fn: checkAnomalyItemCap,
			title: "limit=100 (the cap; the parameter's name is our decision) is accepted: at most 100 items per bucket, no cursor"},
		{id: "anomalies/cache", basis: BasisSpec, spec: "The result is served from a short cache per company and bucket, valid for a few minutes.", fn: checkAnomalyCache,
			title: "the same report asked twice in a row answers the same (a short cache)"},
	}
	if !full {
		for _, c := range more {
			c.fn = func(_ context.Context, _ *runner, c *check) {
				c.skipf("the run asks for one anomaly report (the service intends about one pass a day); --anomalies runs this check")
			}
		}
	}
	meaning := &check{id: "anomalies/bucket-meaning", basis: BasisSpec,
		spec: "| unanswered | the contact spoke and nothing went out after, neither from an agent nor from automation | always returned |", fn: checkBucketMeaning,
		title: "each of the first unanswered items (and automation_only items, with --anomalies): the conversation's own messages show its last inbound message at last_inbound_at and nothing sent after it (automation_only: a reply sent after it)"}
	return append(append(checks, more...), meaning)
}

// anomalies asks for an anomaly report, counting it.
func (r *runner) anomalies(ctx context.Context, c *check, q url.Values) (*exchange, bool) {
	ex, ok := r.get(ctx, c, anomaliesPath, q)
	if ok {
		r.anomalyCalls++
	}
	return ex, ok
}

// wantCeiling is a channel's ceiling: its service window (as the channel
// list states it), or 24 hours for a channel without one (sms, webchat,
// and chatapp's window is 24 hours).
func wantCeiling(ch string, windows map[string]int64) int64 {
	if h := windows[ch]; h > 0 {
		return h
	}
	return 24
}

// serviceWindows are the session_window_hours of the listed channels (0
// for none).
func (r *runner) serviceWindows() map[string]int64 {
	out := map[string]int64{}
	for _, ch := range r.d.channels {
		caps, _ := ch["capabilities"].(map[string]any)
		h, _ := strconv.ParseInt(fmt.Sprint(caps["session_window_hours"]), 10, 64)
		out[str(ch, "channel")] = h
	}
	return out
}

// anomalyReport checks an anomaly report's shape against the channels'
// service windows; opt lists the opt-in buckets asked for.
func anomalyReport(c *check, ex *exchange, windows map[string]int64, opt ...string) (fields, bool) {
	data, ok := envelope(c, ex, http.StatusOK)
	if !ok {
		return fields{}, false
	}
	if w, ok := data.object("window", false); ok {
		if th, ok := w.integer("threshold_hours", false); ok && (th < 1 || th > 24) {
			c.failf(ex, "data.window.threshold_hours %d is outside 1 to 24", th)
		}
		if ceil, ok := w.object("ceiling_hours_by_channel", false); ok {
			for _, ch := range []string{"chatapp", "sms", "botapp", "webchat"} {
				if h, ok := ceil.integer(ch, false); ok && h != wantCeiling(ch, windows) {
					c.failf(ex, "the %s ceiling is %d hours, want %d (its service window, or 24 without one)", ch, h, wantCeiling(ch, windows))
				}
			}
		}
	}
	b, ok := data.object("buckets", false)
	if !ok {
		return data, false
	}
	for _, name := range append([]string{"unanswered"}, opt...) {
		if bk, ok := b.object(name, false); ok {
			n, _ := bk.integer("count", false)
			if items, ok := bk.array("items"); ok && int64(len(items)) > n {
				c.failf(ex, "buckets.%s has %d items but a count of %d", name, len(items), n)
			}
		}
	}
	if ne, ok := b.object("never_engaged", false); ok {
		ne.integer("count", false)
		ne.absent("items", "never_engaged is a count only, never a list")
	}
	for _, name := range []string{"unassigned", "automation_only"} {
		if !slices.Contains(opt, name) {
			b.absent(name, "an opt-in bucket is returned only when asked for")
		}
	}
	return data, true
}

func checkAnomalyReport(ctx context.Context, r *runner, c *check) {
	ex, ok := r.anomalies(ctx, c, nil)
	if !ok {
		return
	}
	r.d.anomalyEx = ex
	anomalyReport(c, ex, r.serviceWindows())
}

// bucketItems are the items of the named bucket of an anomaly report.
func bucketItems(ex *exchange, name string) []map[string]any {
	b, _ := ex.data()["buckets"].(map[string]any)
	bk, _ := b[name].(map[string]any)
	a, _ := bk["items"].([]any)
	return objects(a)
}

func (r *runner) anomalyReportOrSkip(c *check) *exchange {
	if r.d.anomalyEx == nil || r.d.anomalyEx.data() == nil {
		c.skipf("the anomaly report could not be read")
		return nil
	}
	return r.d.anomalyEx
}

func checkAnomalyItems(_ context.Context, r *runner, c *check) {
	ex := r.anomalyReportOrSkip(c)
	if ex == nil {
		return
	}
	w, _ := ex.data()["window"].(map[string]any)
	th, _ := strconv.ParseFloat(str2(w["threshold_hours"]), 64)
	ceil, _ := w["ceiling_hours_by_channel"].(map[string]any)
	now := envelopeTime(ex)
	items := bucketItems(ex, "unanswered")
	if len(items) == 0 {
		c.skipf("the unanswered bucket has no items")
		return
	}
	for i, it := range items {
		f, _ := obj(c, ex, "buckets.unanswered.items["+strconv.Itoa(i)+"]", it)
		f.uuid("conversation_id")
		f.uuid("contact_id")
		ch, _ := f.str("channel", false)
		f.uuid("channel_account_id")
		in, okIn := f.stamp("last_inbound_at", false)
		f.stamp("last_message_at", false)
		wh, okW := f.number("waiting_hours")
		f.boolean("assigned")
		f.integer("unread_count", false)
		if !okW {
			continue
		}
		if wh < th {
			c.failf(ex, "%s waits %.1f hours, less than the threshold %v", f.where, wh, th)
		}
		if h, err := strconv.ParseFloat(str2(ceil[ch]), 64); err == nil && wh > h+0.05 {
			c.failf(ex, "%s waits %.1f hours, more than the %s ceiling of %v hours", f.where, wh, ch, h)
		}
		// The report may come from the cache, computed up to a few minutes
		// before its timestamp: waiting_hours may lag, never lead.
		if okIn && !now.IsZero() {
			if want := now.Sub(in).Hours(); wh > want+0.051 || wh < want-cacheLag.Hours()-0.051 {
				c.failf(ex, "%s: waiting_hours %.2f, but last_inbound_at is %.2f hours before the report's timestamp", f.where, wh, want)
			}
		}
	}
}

// str2 is the text of a JSON scalar.
func str2(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	default:
		return fmt.Sprint(x)
	}
}

func checkAnomalyOrder(_ context.Context, r *runner, c *check) {
	ex := r.anomalyReportOrSkip(c)
	if ex == nil {
		return
	}
	items := bucketItems(ex, "unanswered")
	if len(items) < 2 {
		c.skipf("fewer than two unanswered items to order")
		return
	}
	for i := 1; i < len(items); i++ {
		a, _ := strconv.ParseFloat(str2(items[i-1]["waiting_hours"]), 64)
		b, _ := strconv.ParseFloat(str2(items[i]["waiting_hours"]), 64)
		if a < b || (a == b && str(items[i-1], "conversation_id") > str(items[i], "conversation_id")) {
			c.failf(ex, "item %d (waiting %v hours, %s) comes before item %d (waiting %v hours, %s)",
				i-1, a, str(items[i-1], "conversation_id"), i, b, str(items[i], "conversation_id"))
			return
		}
	}
}

func checkAnomalyDefaults(_ context.Context, r *runner, c *check) {
	ex := r.anomalyReportOrSkip(c)
	if ex == nil {
		return
	}
	w, _ := ex.data()["window"].(map[string]any)
	if th := str2(w["threshold_hours"]); th != "4" {
		c.failf(ex, "the default threshold_hours is %s, want 4", th)
	}
	if n := len(bucketItems(ex, "unanswered")); n > 20 {
		c.failf(ex, "the default report lists %d unanswered items, want at most 20", n)
	}
}

func checkAnomalyOptIn(ctx context.Context, r *runner, c *check) {
	ex, ok := r.anomalies(ctx, c, url.Values{"include": {"unassigned,automation_only"}})
	if !ok {
		return
	}
	if _, ok := anomalyReport(c, ex, r.serviceWindows(), "unassigned", "automation_only"); !ok {
		return
	}
	r.d.optInEx = ex
	for _, it := range bucketItems(ex, "unassigned") {
		if a, _ := it["assigned"].(bool); a {
			c.failf(ex, "conversation %s is in the unassigned bucket but assigned", str(it, "conversation_id"))
		}
	}
}

func checkUnknownBucket(ctx context.Context, r *runner, c *check) {
	ex, ok := r.anomalies(ctx, c, url.Values{"include": {"convocheck_no_such_bucket"}})
	if !ok {
		return
	}
	msg, ok := errorAnswer(c, ex, http.StatusBadRequest, "INVALID_BUCKET")
	if !ok {
		return
	}
	details, ok := msg.object("details", false)
	if !ok {
		return
	}
	want := map[string][]string{
		"valid_buckets": {"automation_only", "never_engaged", "unanswered", "unassigned"},
		"opt_in":        {"automation_only", "unassigned"},
	}
	for key, names := range want {
		a, ok := details.array(key)
		if !ok {
			continue
		}
		var got []string
		for _, v := range a {
			s, _ := v.(string)
			got = append(got, s)
		}
		if slices.Sort(got); !slices.Equal(got, names) {
			c.failf(ex, "details.%s is %q, want %q", key, got, names)
		}
	}
}

func checkThresholdBounds(ctx context.Context, r *runner, c *check) {
	for _, th := range []string{"1", "24", "0", "25"} {
		ex, ok := r.anomalies(ctx, c, url.Values{"threshold_hours": {th}})
		if !ok {
			return
		}
		if th == "0" || th == "25" {
			if msg, ok := errorAnswer(c, ex, http.StatusBadRequest, "INVALID_PARAM"); ok {
				mentions(c, ex, msg, "threshold_hours")
			}
			continue
		}
		if _, ok := anomalyReport(c, ex, r.serviceWindows()); ok {
			w, _ := ex.data()["window"].(map[string]any)
			if got := str2(w["threshold_hours"]); got != th {
				c.failf(ex, "threshold_hours=%s gives window.threshold_hours %s", th, got)
			}
		}
	}
}

func checkAnomalyLimit(ctx context.Context, r *runner, c *check) {
	for _, limit := range []string{"1", "0", "101"} {
		ex, ok := r.anomalies(ctx, c, url.Values{"limit": {limit}})
		if !ok {
			return
		}
		if limit != "1" {
			if msg, ok := errorAnswer(c, ex, http.StatusBadRequest, "INVALID_PARAM"); ok {
				mentions(c, ex, msg, "limit")
			}
			continue
		}
		if _, ok := anomalyReport(c, ex, r.serviceWindows()); ok {
			if n := len(bucketItems(ex, "unanswered")); n > 1 {
				c.failf(ex, "limit=1 lists %d unanswered items", n)
			}
		}
	}
}

func checkAnomalyCache(ctx context.Context, r *runner, c *check) {
	q := url.Values{"threshold_hours": {"2"}}
	first, ok := r.anomalies(ctx, c, q)
	if !ok {
		return
	}
	second, ok := r.anomalies(ctx, c, q)
	if !ok {
		return
	}
	if _, ok := anomalyReport(c, first, r.serviceWindows()); !ok {
		return
	}
	if !sameJSON(first.data(), second.data()) {
		c.failf(second, "two identical reports asked in a row differ")
	}
}

// pagingKeys are the names a paginated answer would use.
var pagingKeys = []string{"next_cursor", "cursor", "has_more", "next", "page", "next_page"}

// noPaging fails c when the report has a paging field in data or in a
// bucket, or a bucket with more than the cap of items.
func noPaging(c *check, ex *exchange) {
	data := ex.data()
	if data == nil {
		c.failf(ex, "the anomaly report has no data object")
		return
	}
	for _, k := range pagingKeys {
		if _, ok := data[k]; ok {
			c.failf(ex, "data.%s: the anomaly report has no pagination", k)
		}
	}
	buckets, _ := data["buckets"].(map[string]any)
	for _, name := range slices.Sorted(maps.Keys(buckets)) {
		bk, _ := buckets[name].(map[string]any)
		for _, k := range pagingKeys {
			if _, ok := bk[k]; ok {
				c.failf(ex, "data.buckets.%s.%s: the anomaly report has no pagination", name, k)
			}
		}
		if items, _ := bk["items"].([]any); len(items) > maxAnomalyItems {
			c.failf(ex, "data.buckets.%s lists %d items, over the cap of %d", name, len(items), maxAnomalyItems)
		}
	}
}

// maxAnomalyItems is the specification's cap of items per bucket.
const maxAnomalyItems = 100

func checkNoPagination(_ context.Context, r *runner, c *check) {
	if ex := r.anomalyReportOrSkip(c); ex != nil {
		noPaging(c, ex)
	}
}

func checkAnomalyItemCap(ctx context.Context, r *runner, c *check) {
	ex, ok := r.anomalies(ctx, c, url.Values{"limit": {strconv.Itoa(maxAnomalyItems)}})
	if !ok {
		return
	}
	if _, ok := anomalyReport(c, ex, r.serviceWindows()); ok {
		noPaging(c, ex)
	}
}

// meaningSample is how many items of a bucket bucket-meaning reads the
// messages of.
const meaningSample = 3

// checkBucketMeaning reads the messages of the first items of the
// unanswered bucket (and of automation_only, when the full anomaly checks
// asked for it) and checks each against what the bucket means.
func checkBucketMeaning(ctx context.Context, r *runner, c *check) {
	ex := r.anomalyReportOrSkip(c)
	if ex == nil {
		return
	}
	type sample struct {
		bucket string
		item   map[string]any
	}
	var samples []sample
	for _, it := range firstN(bucketItems(ex, "unanswered"), meaningSample) {
		samples = append(samples, sample{"unanswered", it})
	}
	if r.d.optInEx != nil {
		for _, it := range firstN(bucketItems(r.d.optInEx, "automation_only"), meaningSample) {
			samples = append(samples, sample{"automation_only", it})
		}
	}
	if len(samples) == 0 {
		c.skipf("the report lists no unanswered (or automation_only) item to compare with its messages")
		return
	}
	for _, sm := range samples {
		id := str(sm.item, "conversation_id")
		mex, ok := r.get(ctx, c, "/conversations/"+url.PathEscape(id)+"/messages", url.Values{"limit": {"100"}})
		if !ok {
			return
		}
		if _, ok := envelope(c, mex, http.StatusOK); !ok {
			continue
		}
		msgs := objects(asArray(mex.data()["items"]))
		lastIn, repliedAfter := lastInboundAndReplies(msgs)
		where := fmt.Sprintf("%s item %s", sm.bucket, id)
		switch {
		case lastIn == nil:
			c.failf(mex, "%s: its messages show no inbound message", where)
			continue
		case !stampOf(lastIn, "sent_at").Equal(stampOf(sm.item, "last_inbound_at")):
			c.failf(mex, "%s: last_inbound_at is %s, its last inbound message was sent at %s", where, str(sm.item, "last_inbound_at"), str(lastIn, "sent_at"))
		}
		if sm.bucket == "unanswered" && repliedAfter > 0 {
			c.failf(mex, "%s: %d messages went out after its last inbound message", where, repliedAfter)
		}
		if sm.bucket == "automation_only" && repliedAfter == 0 {
			c.failf(mex, "%s: nothing went out after its last inbound message, so there was no reply", where)
		}
	}
}

// lastInboundAndReplies finds, in messages newest first, the newest
// inbound message and counts the outbound messages after it that went out
// (a failed one did not; system messages count for nothing).
func lastInboundAndReplies(msgs []map[string]any) (lastIn map[string]any, replies int) {
	for _, m := range msgs {
		switch {
		case str(m, "direction") == "inbound":
			return m, replies
		case str(m, "direction") == "outbound" && str(m, "type") != "system" && str(m, "status") != "failed":
			replies++
		}
	}
	return nil, replies
}

func firstN[T any](s []T, n int) []T { return s[:min(n, len(s))] }
