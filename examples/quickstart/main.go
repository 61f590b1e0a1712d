// Command quickstart is a tour of the SDK in one screen: channel accounts
// and their capabilities, the open conversations, the latest messages of one
// of them (text, media status, reactions), fetching a message's attachment
// (and what happens when a message has no retrievable file), the typed error
// branch, and the anomaly report of conversations waiting for an answer.
//
// Run it with no account at all; it starts an embedded fake of the service
// loaded with demo data:
//
//	go run ./examples/quickstart
//
// Or against your account (read-only calls only):
//
//	CONVO_BASE_URL=https://api.example.com/v1 CONVO_API_KEY=... go run ./examples/quickstart
//
// Only one of the two set (the other missing or empty) is a mistake: the
// program says which is missing and exits 1, never showing demo data. Exit
// codes: 0 the tour ran; 1 it failed (a bad flag, half the configuration, an
// error from the service).
//
// Flags: --messages N (how many messages of the conversation to show);
// --anomalies=false skips the anomaly report, which the service limits to
// about one call a day (keep yours for the daily sweep, see anomaly-sweep).
package main

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"strconv"
	"time"

	convo "github.com/convoapi/convo-go"
	"github.com/convoapi/convo-go/examples/internal/demo"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("quickstart", flag.ContinueOnError)
	fs.SetOutput(stderr)
	nMessages := fs.Int("messages", 10, "how many of the conversation's latest messages to show (1-100)")
	anomalies := fs.Bool("anomalies", true, "read the anomaly report (limited by the service to about one call a day)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 1
	}
	client, done, err := demo.Client(stderr)
	if err == nil {
		defer done()
		t := &tour{c: client, out: stdout, nMessages: *nMessages}
		sections := []func(context.Context) error{t.channelAccounts, t.openConversations, t.latestMessages, t.attachments, t.typedErrors}
		if *anomalies {
			sections = append(sections, t.anomalyReport)
		}
		for _, section := range sections {
			if err = section(ctx); err != nil {
				break
			}
		}
	}
	if err != nil {
		fmt.Fprintln(stderr, "quickstart:", err)
		return 1
	}
	if !*anomalies {
		fmt.Fprintln(stdout, "\nAnomaly report skipped (--anomalies=false).")
	}
	return 0
}

// tour shows one section after the other; each returns the first failure,
// wrapped with what it was doing, and leaves what the next ones use.
type tour struct {
	c         *convo.Client
	out       io.Writer
	nMessages int
	accounts  []convo.ChannelAccount
	convs     []convo.Conversation // open ones
	msgs      []convo.Message      // of the busiest open conversation
}

// channelAccounts lists the company's channel accounts and what they can do.
func (t *tour) channelAccounts(ctx context.Context) error {
	accounts, err := t.c.Channels.List(ctx)
	if err != nil {
		return fmt.Errorf("listing channel accounts: %w", err)
	}
	t.accounts = accounts
	tw := section(t.out, "Channel accounts (%d)", len(accounts))
	fmt.Fprintln(tw, "  NAME\tCHANNEL\tPROVIDER ID\tSTATUS\tSENDS\tMAX TEXT\tMAX CAPTION\tSERVICE WINDOW (H)\tTEMPLATES OUTSIDE")
	for _, a := range accounts {
		caps := a.Capabilities
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%v\t%d\t%s\t%s\t%t\n", a.DisplayName, a.Channel, a.ProviderIdentifier, a.Status,
			caps.MessageTypes, caps.MaxTextLength, orNone(caps.MaxCaptionLength), orNone(caps.SessionWindowHours), caps.RequiresTemplateOutsideWindow)
	}
	return tw.Flush()
}

// openConversations lists the open conversations: All pages through them as
// the loop advances.
func (t *tour) openConversations(ctx context.Context) error {
	tw := section(t.out, "Open conversations")
	fmt.Fprintln(tw, "  CONVERSATION\tCHANNEL\tCONTACT ADDRESS\tASSIGNED\tUNREAD\tLAST INBOUND\tLAST MESSAGE")
	for conv, err := range t.c.Conversations.All(ctx, &convo.ListConversationsParams{Status: convo.ConversationOpen}) {
		if err != nil {
			return fmt.Errorf("listing conversations: %w", err)
		}
		t.convs = append(t.convs, conv)
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%t\t%d\t%s\t%s\n", conv.ID, conv.Channel, conv.ChannelIdentifier,
			conv.Assigned, conv.UnreadCount, when(conv.LastInboundAt), when(conv.LastMessageAt))
	}
	return tw.Flush()
}

// latestMessages shows the latest messages of the busiest open conversation:
// the most unread messages, then the most recent (the list's order).
func (t *tour) latestMessages(ctx context.Context) error {
	if len(t.convs) == 0 {
		return nil
	}
	conv := slices.MaxFunc(t.convs, func(a, b convo.Conversation) int { return cmp.Compare(a.UnreadCount, b.UnreadCount) })
	page, err := t.c.Messages.List(ctx, conv.ID, &convo.ListMessagesParams{Limit: t.nMessages})
	if err != nil {
		return fmt.Errorf("reading messages: %w", err)
	}
	t.msgs = page.Items
	tw := section(t.out, "Latest %d messages of %s (%s %s; newest first, window: last %d days)",
		len(page.Items), conv.ID, conv.Channel, conv.ChannelIdentifier, page.Window.RecentWindowDays)
	fmt.Fprintln(tw, "  SENT\tDIRECTION\tTYPE\tSTATUS\tTEXT\tMEDIA\tREACTIONS")
	for _, m := range page.Items {
		media := "-"
		if m.Media != nil {
			media = fmt.Sprintf("%s %s", m.Media.MediaStatus, m.Media.MimeType)
		}
		var reactions []string
		for _, r := range m.Reactions {
			reactions = append(reactions, fmt.Sprintf("%s (%s)", r.Emoji, r.Direction))
		}
		text := "-" // a media message without a caption, a reaction, a system message
		if m.Text != nil {
			text = fmt.Sprintf("%.40q", *m.Text)
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\t%s\t%v\n", when(m.SentAt), m.Direction, m.Type, cmp.Or(m.Status, "-"),
			text, media, reactions)
	}
	return tw.Flush()
}

// attachments downloads the first available file among msgs, and shows the
// ErrNoMedia branch on the first media message without one. A message never
// carries a URL: its media_id is exchanged for a temporary address; a
// media_id of null is a normal case, answered without any request.
func (t *tour) attachments(ctx context.Context) error {
	c, msgs, out := t.c, t.msgs, t.out
	fmt.Fprintln(out, "\nAttachments")
	withFile := slices.IndexFunc(msgs, func(m convo.Message) bool { return m.Media != nil && m.Media.Available() })
	without := slices.IndexFunc(msgs, func(m convo.Message) bool { return m.Media != nil && !m.Media.Available() })
	if withFile >= 0 {
		m := msgs[withFile]
		att, err := c.Attachments.ForMessage(ctx, m)
		if err != nil {
			return fmt.Errorf("attachment of %s: %w", m.MessageID, err)
		}
		// DownloadAttachment streams the file to any io.Writer (a file in
		// real code) from the address just obtained, asking for a fresh one
		// only if it has expired, and never sends the API key to the file
		// host. Attachments.Download(ctx, msg, w) does both steps.
		var buf bytes.Buffer
		n, err := c.Attachments.DownloadAttachment(ctx, att, &buf)
		if err != nil {
			return fmt.Errorf("downloading %s: %w", m.MessageID, err)
		}
		fmt.Fprintf(out, "  %s: %s, %s, address valid until %s; downloaded %d bytes\n",
			m.MessageID, att.Filename, att.MimeType, att.ExpiresAt.UTC().Format("15:04:05 UTC"), n)
	}
	if without >= 0 {
		m := msgs[without]
		_, err := c.Attachments.ForMessage(ctx, m)
		var nm *convo.NoMediaError
		if !errors.As(err, &nm) {
			return fmt.Errorf("attachment of %s: %w", m.MessageID, err)
		}
		fmt.Fprintf(out, "  %s: media_status %s, media_id null — ErrNoMedia, no request sent (a normal case, not a failure)\n",
			m.MessageID, nm.MediaStatus)
	}
	return nil
}

// typedErrors looks up a contact that does not exist: handle errors by
// their code (errors.Is, errors.As), never by their text.
func (t *tour) typedErrors(ctx context.Context) error {
	fmt.Fprintln(t.out, "\nTyped errors")
	lookup := &convo.LookupContactParams{PhoneNumber: "+1 (555) 010-0999"}
	if i := slices.IndexFunc(t.accounts, func(a convo.ChannelAccount) bool { return a.Channel == convo.ChannelChatapp }); i >= 0 {
		lookup.PhoneNumberID = t.accounts[i].ProviderIdentifier
	}
	_, err := t.c.Contacts.Lookup(ctx, lookup)
	var apiErr *convo.Error
	if !errors.Is(err, convo.ErrContactNotFound) || !errors.As(err, &apiErr) {
		return fmt.Errorf("looking up a contact that should not exist: %v", err)
	}
	fmt.Fprintf(t.out, "  Lookup of %s: no such contact — errors.Is(err, convo.ErrContactNotFound) is true\n", lookup.PhoneNumber)
	fmt.Fprintf(t.out, "  (HTTP %d, code %s, errorId %s to quote to support)\n", apiErr.StatusCode, apiErr.Code, apiErr.ErrorID)
	return nil
}

// anomalyReport reads the report with both opt-in buckets. The service
// limits this call to about one pass a day: this is a sweep, not a poll.
func (t *tour) anomalyReport(ctx context.Context) error {
	report, err := t.c.Anomalies.Get(ctx, &convo.AnomaliesParams{
		Include: []convo.Bucket{convo.BucketUnassigned, convo.BucketAutomationOnly},
	})
	if err != nil {
		return fmt.Errorf("reading the anomaly report: %w", err)
	}
	b := report.Buckets
	tw := section(t.out, "Anomaly report (waiting at least %dh, up to each channel's ceiling)", report.Window.ThresholdHours)
	fmt.Fprintln(tw, "  BUCKET\tCOUNT\tWORST WAITING")
	for _, row := range []struct {
		name   convo.Bucket
		bucket *convo.AnomalyBucket
	}{{convo.BucketUnanswered, &b.Unanswered}, {convo.BucketUnassigned, b.Unassigned}, {convo.BucketAutomationOnly, b.AutomationOnly}} {
		worst := "-"
		if len(row.bucket.Items) > 0 { // items come worst first
			worst = fmt.Sprintf("%.1fh in %s", row.bucket.Items[0].WaitingHours, row.bucket.Items[0].ConversationID)
		}
		fmt.Fprintf(tw, "  %s\t%d\t%s\n", row.name, row.bucket.Count, worst)
	}
	fmt.Fprintf(tw, "  %s\t%d\t(count only)\n", convo.BucketNeverEngaged, b.NeverEngaged.Count)
	tw.Flush()
	fmt.Fprintln(t.out, "\nNext: go run ./examples/anomaly-sweep --help, and read the package documentation (go doc github.com/convoapi/convo-go).")
	return nil
}

// section writes a heading and returns a table writer for what follows it.
func section(out io.Writer, format string, a ...any) *table {
	fmt.Fprintf(out, "\n"+format+"\n", a...)
	return newTable(out)
}

// orNone shows a limit the service may leave null.
func orNone(n *int) string {
	if n == nil {
		return "none"
	}
	return strconv.Itoa(*n)
}

func when(t *time.Time) string {
	if t == nil {
		return "-"
	}
	return t.UTC().Format("2006-01-02 15:04 UTC")
}
