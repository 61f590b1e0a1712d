package conformance

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/convoapi/convo-go"
)

func sdkChecks() []*check {
	return []*check{
		{id: "sdk/channels", basis: BasisSDK, fn: checkSDKChannels,
			title: "the SDK decodes the channel list: the same accounts"},
		{id: "sdk/conversations", basis: BasisSDK, fn: checkSDKConversations,
			title: "the SDK decodes a page of conversations: the same ids in the same order"},
		{id: "sdk/messages", basis: BasisSDK, fn: checkSDKMessages,
			title: "the SDK decodes a message read: the same messages, media and window"},
		{id: "sdk/attachment", basis: BasisSDK, fn: checkSDKAttachment,
			title: "the SDK decodes an attachment answer"},
		{id: "sdk/lookup", basis: BasisSDK, fn: checkSDKLookup,
			title: "the SDK decodes a contact"},
		{id: "sdk/anomalies", basis: BasisSDK, fn: checkSDKAnomalies,
			title: "the SDK decodes the anomaly report with its opt-in buckets"},
		{id: "sdk/typed-error", basis: BasisSDK, fn: checkSDKError,
			title: "the SDK turns an unknown conversation into ErrConversationNotFound"},
	}
}

// sdk is a client of the SDK on the run's paced transport, which never
// retries, so that it stops at the first 429 as the raw checks do.
func (r *runner) sdk(c *check) *convo.Client {
	if r.client != nil {
		return r.client
	}
	opts := []convo.Option{
		convo.WithBaseURL(r.cfg.BaseURL), convo.WithAPIKey(r.cfg.APIKey),
		convo.WithHTTPClient(r.hc), convo.WithMaxRetries(0), convo.WithUserAgent("convocheck"),
	}
	if r.cfg.AllowInsecureHTTP {
		opts = append(opts, convo.WithInsecureHTTP())
	}
	client, err := convo.NewClient(opts...)
	if err != nil {
		c.failf(nil, "the SDK refuses the configuration: %s", r.redact.String(err.Error()))
		return nil
	}
	r.client = client
	return client
}

// sdkErr records an SDK error: a skip when the run cannot send, else a
// failure.
func (r *runner) sdkErr(c *check, what string, err error) {
	var stop *stopError
	switch {
	case errors.Is(err, errBudget):
		c.skipf("the request budget (%d requests) is spent", r.cfg.MaxRequests)
	case errors.As(err, &stop):
		c.skipf("not sent: %s", stop.why)
	default:
		c.failf(nil, "%s: %s", what, r.redact.String(err.Error()))
	}
}

func checkSDKChannels(ctx context.Context, r *runner, c *check) {
	if r.d.channelsEx == nil {
		c.skipf("the channel list could not be read")
		return
	}
	client := r.sdk(c)
	if client == nil {
		return
	}
	accs, err := client.Channels.List(ctx)
	if err != nil {
		r.sdkErr(c, "Channels.List", err)
		return
	}
	var got []string
	for _, a := range accs {
		got = append(got, a.ID)
	}
	if want := ids(r.d.channels, "id"); !slices.Equal(got, want) {
		c.failf(nil, "Channels.List gives %q, the wire %q", got, want)
	}
}

func checkSDKConversations(ctx context.Context, r *runner, c *check) {
	if len(r.d.convs) == 0 {
		c.skipf("no conversations")
		return
	}
	client := r.sdk(c)
	if client == nil {
		return
	}
	p, err := client.Conversations.List(ctx, &convo.ListConversationsParams{Status: convo.ConversationAll, Limit: 100})
	if err != nil {
		r.sdkErr(c, "Conversations.List", err)
		return
	}
	var got []string
	for _, cv := range p.Items {
		got = append(got, cv.ID)
	}
	want := ids(r.d.convs, "id")
	want = want[:min(100, len(want))]
	if !slices.Equal(got, want) {
		c.failf(nil, "Conversations.List gives %d conversations that differ from the wire's %d (first difference at %d)", len(got), len(want), firstDiff(got, want))
	}
}

func checkSDKMessages(ctx context.Context, r *runner, c *check) {
	if len(r.d.msgConvs) == 0 {
		c.skipf("no message read")
		return
	}
	client := r.sdk(c)
	if client == nil {
		return
	}
	id := r.d.msgConvs[0]
	if r.d.mediaConv != "" {
		id = r.d.mediaConv
	}
	p, err := client.Messages.List(ctx, id, &convo.ListMessagesParams{Limit: 100})
	if err != nil {
		r.sdkErr(c, "Messages.List", err)
		return
	}
	want := r.d.messages[id]
	if len(p.Items) != len(want) {
		c.failf(nil, "Messages.List gives %d messages, the wire %d", len(p.Items), len(want))
		return
	}
	for i, m := range p.Items {
		w := want[i]
		if m.MessageID != str(w, "message_id") || string(m.Direction) != str(w, "direction") || string(m.Type) != str(w, "type") {
			c.failf(nil, "message %d decodes as %s %s %s, the wire says %s %s %s", i, m.MessageID, m.Direction, m.Type,
				str(w, "message_id"), str(w, "direction"), str(w, "type"))
		}
		md, _ := w["media"].(map[string]any)
		if (m.Media == nil) != (md == nil) || (m.Media != nil && string(m.Media.MediaStatus) != str(md, "media_status")) {
			c.failf(nil, "message %s: the media block decodes differently", m.MessageID)
		}
		if len(m.Reactions) != len(asArray(w["reactions"])) {
			c.failf(nil, "message %s: %d reactions decoded, %d on the wire", m.MessageID, len(m.Reactions), len(asArray(w["reactions"])))
		}
	}
	if p.Window.RecentWindowDays != 30 {
		c.failf(nil, "Window.RecentWindowDays decodes as %d", p.Window.RecentWindowDays)
	}
}

func asArray(v any) []any { a, _ := v.([]any); return a }

func checkSDKAttachment(ctx context.Context, r *runner, c *check) {
	if r.d.mediaMsg == nil {
		c.skipf("no message with available media was read")
		return
	}
	client := r.sdk(c)
	if client == nil {
		return
	}
	id := str(r.d.mediaMsg["media"].(map[string]any), "media_id")
	att, err := client.Attachments.Get(ctx, id)
	if err != nil {
		r.sdkErr(c, "Attachments.Get", err)
		return
	}
	if att.MediaID != id || att.URL == "" || att.ExpiresAt.IsZero() {
		c.failf(nil, "Attachments.Get decodes media_id %q, url set %t, expires_at %s", att.MediaID, att.URL != "", att.ExpiresAt)
	}
}

func checkSDKLookup(ctx context.Context, r *runner, c *check) {
	if r.d.lookup == nil {
		c.skipf("no contact was found by lookup")
		return
	}
	client := r.sdk(c)
	if client == nil {
		return
	}
	cv, pnid := r.chatappContact()
	ct, err := client.Contacts.Lookup(ctx, &convo.LookupContactParams{PhoneNumberID: pnid, PhoneNumber: str(cv, "channel_identifier")})
	if err != nil {
		r.sdkErr(c, "Contacts.Lookup", err)
		return
	}
	if ct.ID != str(r.d.lookup, "id") || ct.PhoneNumber != str(r.d.lookup, "phone_number") || ct.TagNamesRaw != str(r.d.lookup, "tag_names") {
		c.failf(nil, "Contacts.Lookup decodes %s %s %q, the wire says %s %s %q", ct.ID, ct.PhoneNumber, ct.TagNamesRaw,
			str(r.d.lookup, "id"), str(r.d.lookup, "phone_number"), str(r.d.lookup, "tag_names"))
	}
}

func checkSDKAnomalies(ctx context.Context, r *runner, c *check) {
	if !r.cfg.Anomalies {
		c.skipf("the run asks for one anomaly report (the service intends about one pass a day); --anomalies runs this check")
		return
	}
	if r.d.optInEx == nil {
		c.skipf("the anomaly report with the opt-in buckets could not be read")
		return
	}
	client := r.sdk(c)
	if client == nil {
		return
	}
	rep, err := client.Anomalies.Get(ctx, &convo.AnomaliesParams{Include: []convo.Bucket{convo.BucketUnassigned, convo.BucketAutomationOnly}})
	r.anomalyCalls++
	if err != nil {
		r.sdkErr(c, "Anomalies.Get", err)
		return
	}
	b, _ := r.d.optInEx.data()["buckets"].(map[string]any)
	count := func(name string) string { bk, _ := b[name].(map[string]any); return fmt.Sprint(bk["count"]) }
	got := fmt.Sprint(rep.Buckets.Unanswered.Count, rep.Buckets.NeverEngaged.Count)
	if want := count("unanswered") + " " + count("never_engaged"); got != want {
		c.failf(nil, "Anomalies.Get decodes counts %s, the wire %s", got, want)
	}
	if rep.Buckets.Unassigned == nil || rep.Buckets.AutomationOnly == nil {
		c.failf(nil, "Anomalies.Get does not decode the opt-in buckets")
	}
}

func checkSDKError(ctx context.Context, r *runner, c *check) {
	client := r.sdk(c)
	if client == nil {
		return
	}
	_, err := client.Messages.List(ctx, randomUUID(), nil)
	var stop *stopError
	switch {
	case errors.Is(err, errBudget) || errors.As(err, &stop):
		r.sdkErr(c, "Messages.List", err)
	case !errors.Is(err, convo.ErrConversationNotFound):
		c.failf(nil, "Messages.List of an unknown conversation gives %v, want ErrConversationNotFound", err)
	}
}
