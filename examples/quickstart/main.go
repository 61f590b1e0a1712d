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
// error from the service); the built binary returns them as they are, and
// `go run` exits 1 for any non-zero code.
//
// Flags: --messages N (how many messages of the conversation to show);
// --anomalies=false skips the anomaly report, which the service limits to
// about one call a day (keep yours for the daily sweep, see anomaly-sweep).
package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"
	"unicode/utf8"

	convo "github.com/convoapi/convo-go"
	"github.com/convoapi/convo-go/examples/internal/demo"
)

// usage heads --help; the flags follow it.
const usage = `Usage: quickstart [flags]

A tour of the SDK in one screen. No flag is required. Uses your account when
CONVO_BASE_URL and CONVO_API_KEY are both set, demo data when neither is;
only one of them set is an error.

Exit codes: 0 the tour ran; 1 it failed (a bad flag, half the configuration,
an error from the service). Under "go run", go prints "exit status 1" too.

Flags:
`

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
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), usage)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 1
	}
	if *nMessages < 1 || *nMessages > 100 {
		fmt.Fprintln(stderr, "quickstart: --messages must be 1 to 100")
		return 1
	}

	client, done, err := demo.Client(stderr)
	if err != nil {
		fmt.Fprintln(stderr, "quickstart:", err)
		return 1
	}
	defer done()

	if err := tour(ctx, client, *nMessages, *anomalies, stdout); err != nil {
		fmt.Fprintln(stderr, "quickstart:", err)
		return 1
	}
	return 0
}

func tour(ctx context.Context, c *convo.Client, nMessages int, anomalies bool, out io.Writer) error {
	// 1. Channel accounts and what they can do.
	accounts, err := c.Channels.List(ctx)
	if err != nil {
		return fmt.Errorf("listing channel accounts: %w", err)
	}
	heading(out, "Channel accounts (%d)", len(accounts))
	tw := table(out)
	fmt.Fprintln(tw, "  NAME\tCHANNEL\tPROVIDER ID\tSTATUS\tSENDS\tMAX TEXT\tMAX CAPTION\tSERVICE WINDOW")
	for _, a := range accounts {
		caps := a.Capabilities
		types := make([]string, len(caps.MessageTypes))
		for i, t := range caps.MessageTypes {
			types[i] = string(t)
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n",
			a.DisplayName, a.Channel, a.ProviderIdentifier, a.Status, strings.Join(types, ","),
			limit(caps.MaxTextLength), optLimit(caps.MaxCaptionLength, "no limit"), window(caps))
	}
	tw.Flush()

	// 2. The open conversations: All pages through them as the loop advances.
	heading(out, "Open conversations")
	var convs []convo.Conversation
	tw = table(out)
	fmt.Fprintln(tw, "  CONVERSATION\tCHANNEL\tCONTACT ADDRESS\tASSIGNED\tUNREAD\tLAST INBOUND\tLAST MESSAGE")
	for conv, err := range c.Conversations.All(ctx, &convo.ListConversationsParams{Status: convo.ConversationOpen}) {
		if err != nil {
			return fmt.Errorf("listing conversations: %w", err)
		}
		convs = append(convs, conv)
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%d\t%s\t%s\n",
			conv.ID, conv.Channel, conv.ChannelIdentifier, yesNo(conv.Assigned), conv.UnreadCount,
			when(conv.LastInboundAt), when(conv.LastMessageAt))
	}
	tw.Flush()
	if len(convs) == 0 {
		fmt.Fprintln(out, "  (none)")
	}

	// 3. The latest messages of the busiest open conversation: the most
	// unread messages, then the most recent (the list's order).
	var msgs []convo.Message
	if len(convs) > 0 {
		conv := convs[0]
		for _, cv := range convs[1:] {
			if cv.UnreadCount > conv.UnreadCount {
				conv = cv
			}
		}
		page, err := c.Messages.List(ctx, conv.ID, &convo.ListMessagesParams{Limit: nMessages})
		if err != nil {
			return fmt.Errorf("reading messages: %w", err)
		}
		msgs = page.Items
		heading(out, "Latest %d messages of %s (%s %s; newest first, window: last %d days)",
			len(msgs), conv.ID, conv.Channel, conv.ChannelIdentifier, page.Window.RecentWindowDays)
		tw = table(out)
		fmt.Fprintln(tw, "  SENT\tDIRECTION\tTYPE\tSTATUS\tTEXT\tMEDIA\tREACTIONS")
		for _, m := range msgs {
			fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\t%s\t%s\n",
				when(m.SentAt), m.Direction, m.Type, orDash(string(m.Status)), quote(m.Text),
				media(m.Media), reactions(m.Reactions))
		}
		tw.Flush()
	}

	// 4. Media: a message never carries a URL. Exchange its media_id for a
	// temporary address and download it; a media_id of null is a normal
	// case, answered with ErrNoMedia without any request.
	heading(out, "Attachments")
	if err := attachments(ctx, c, msgs, out); err != nil {
		return err
	}

	// 5. The typed error branch: handle errors by code, never by text.
	heading(out, "Typed errors")
	lookup := &convo.LookupContactParams{PhoneNumber: "+1 (555) 010-0999"}
	for _, a := range accounts {
		if a.Channel == convo.ChannelChatapp {
			lookup.PhoneNumberID = a.ProviderIdentifier
			break
		}
	}
	contact, err := c.Contacts.Lookup(ctx, lookup)
	var apiErr *convo.Error
	switch {
	case errors.Is(err, convo.ErrContactNotFound) && errors.As(err, &apiErr):
		fmt.Fprintf(out, "  Lookup of %s: no such contact — errors.Is(err, convo.ErrContactNotFound) is true\n", lookup.PhoneNumber)
		fmt.Fprintf(out, "  (HTTP %d, code %s, errorId %s to quote to support)\n", apiErr.StatusCode, apiErr.Code, apiErr.ErrorID)
	case err != nil:
		return fmt.Errorf("looking up a contact: %w", err)
	default:
		fmt.Fprintf(out, "  Lookup of %s found %s (%s)\n", lookup.PhoneNumber, contact.Name, contact.ID)
	}

	// 6. The anomaly report, with both opt-in buckets. The service limits
	// this call to about one pass a day: this is a sweep, not a poll.
	if !anomalies {
		fmt.Fprintln(out)
		fmt.Fprintln(out, "Anomaly report skipped (--anomalies=false).")
		return nil
	}
	report, err := c.Anomalies.Get(ctx, &convo.AnomaliesParams{
		Include: []convo.Bucket{convo.BucketUnassigned, convo.BucketAutomationOnly},
	})
	if err != nil {
		return fmt.Errorf("reading the anomaly report: %w", err)
	}
	heading(out, "Anomaly report (waiting at least %dh, up to each channel's ceiling)", report.Window.ThresholdHours)
	b := report.Buckets
	tw = table(out)
	fmt.Fprintln(tw, "  BUCKET\tCOUNT\tWORST WAITING")
	bucketRow(tw, convo.BucketUnanswered, &b.Unanswered)
	fmt.Fprintf(tw, "  %s\t%d\t%s\n", convo.BucketNeverEngaged, b.NeverEngaged.Count, "(count only)")
	bucketRow(tw, convo.BucketUnassigned, b.Unassigned)
	bucketRow(tw, convo.BucketAutomationOnly, b.AutomationOnly)
	tw.Flush()
	if len(b.Unanswered.Items) > 0 {
		fmt.Fprintln(out)
		fmt.Fprintln(out, "  Unanswered, worst first:")
		tw = table(out)
		fmt.Fprintln(tw, "    CONVERSATION\tCHANNEL\tWAITING\tASSIGNED\tUNREAD")
		for _, it := range b.Unanswered.Items {
			fmt.Fprintf(tw, "    %s\t%s\t%.1fh\t%s\t%d\n", it.ConversationID, it.Channel, it.WaitingHours, yesNo(it.Assigned), it.UnreadCount)
		}
		tw.Flush()
	}
	fmt.Fprintln(out)
	fmt.Fprintln(out, "Next: go run ./examples/anomaly-sweep --help, and read the package documentation (go doc github.com/convoapi/convo-go).")
	return nil
}

// attachments downloads the first available file among msgs and shows the
// ErrNoMedia branch on the first media message without one.
func attachments(ctx context.Context, c *convo.Client, msgs []convo.Message, out io.Writer) error {
	var withFile, without *convo.Message
	for i := range msgs {
		m := &msgs[i]
		switch {
		case m.Media == nil:
		case m.Media.Available() && withFile == nil:
			withFile = m
		case !m.Media.Available() && without == nil:
			without = m
		}
	}
	if withFile == nil && without == nil {
		fmt.Fprintln(out, "  (no media message among these)")
	}
	if withFile != nil {
		att, err := c.Attachments.ForMessage(ctx, *withFile)
		if err != nil {
			return fmt.Errorf("attachment of %s: %w", withFile.MessageID, err)
		}
		fmt.Fprintf(out, "  %s: %s, %s, %s, temporary address valid until %s\n",
			withFile.MessageID, orDash(att.Filename), att.MimeType, size(att.FileSize), att.ExpiresAt.UTC().Format("15:04:05 UTC"))
		// DownloadAttachment streams the file to any io.Writer (here memory;
		// a file in real code) from the address just obtained, asking for a
		// fresh one only if it has expired, and never sends the API key to
		// the file host. Attachments.Download(ctx, msg, w) does both steps.
		var buf bytes.Buffer
		n, err := c.Attachments.DownloadAttachment(ctx, att, &buf)
		if err != nil {
			return fmt.Errorf("downloading %s: %w", withFile.MessageID, err)
		}
		fmt.Fprintf(out, "  downloaded %s into memory (Attachments.DownloadAttachment streams to any io.Writer)\n", size(n))
	}
	if without != nil {
		_, err := c.Attachments.ForMessage(ctx, *without)
		var nm *convo.NoMediaError
		switch {
		case errors.As(err, &nm):
			fmt.Fprintf(out, "  %s: media_status %s, media_id null — ErrNoMedia, no request sent (a normal case, not a failure)\n",
				without.MessageID, nm.MediaStatus)
		case err != nil:
			return fmt.Errorf("attachment of %s: %w", without.MessageID, err)
		default:
			return fmt.Errorf("attachment of %s: expected ErrNoMedia", without.MessageID)
		}
	}
	return nil
}

func heading(out io.Writer, format string, a ...any) {
	fmt.Fprintln(out)
	fmt.Fprintf(out, format+"\n", a...)
}

func table(out io.Writer) *tabwriter.Writer {
	return tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
}

func bucketRow(tw io.Writer, name convo.Bucket, b *convo.AnomalyBucket) {
	if b == nil {
		fmt.Fprintf(tw, "  %s\t-\t(not requested)\n", name)
		return
	}
	worst := "-"
	if len(b.Items) > 0 {
		worst = fmt.Sprintf("%.1fh", b.Items[0].WaitingHours)
	}
	fmt.Fprintf(tw, "  %s\t%d\t%s\n", name, b.Count, worst)
}

func limit(n int) string {
	if n <= 0 {
		return "none stated"
	}
	return strconv.Itoa(n)
}

func optLimit(n *int, none string) string {
	if n == nil {
		return none
	}
	return strconv.Itoa(*n)
}

func window(c convo.Capabilities) string {
	if c.SessionWindowHours == nil {
		return "none"
	}
	s := fmt.Sprintf("%dh", *c.SessionWindowHours)
	if c.RequiresTemplateOutsideWindow {
		s += " (templates outside)"
	}
	return s
}

func when(t *time.Time) string {
	if t == nil || t.IsZero() {
		return "-"
	}
	return t.UTC().Format("2006-01-02 15:04 UTC")
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// quote shows a text on one line, shortened to 40 characters.
func quote(s *string) string {
	if s == nil {
		return "-"
	}
	t := strings.Join(strings.Fields(*s), " ")
	if utf8.RuneCountInString(t) > 40 {
		t = string([]rune(t)[:39]) + "…"
	}
	return strconv.Quote(t)
}

func media(m *convo.Media) string {
	if m == nil {
		return "-"
	}
	s := string(m.MediaStatus)
	var parts []string
	if m.MimeType != "" {
		parts = append(parts, m.MimeType)
	}
	if m.FileSize != nil {
		parts = append(parts, size(*m.FileSize))
	}
	if len(parts) > 0 {
		s += " (" + strings.Join(parts, ", ") + ")"
	}
	return s
}

func reactions(rs []convo.Reaction) string {
	if len(rs) == 0 {
		return "-"
	}
	parts := make([]string, len(rs))
	for i, r := range rs {
		who := "contact"
		if r.Direction == convo.DirectionOutbound {
			who = "us"
		}
		parts[i] = r.Emoji + " by " + who
	}
	return strings.Join(parts, ", ")
}

func size(n int64) string {
	switch {
	case n < 1024:
		return fmt.Sprintf("%d B", n)
	case n < 1024*1024:
		return fmt.Sprintf("%.1f KiB", float64(n)/1024)
	default:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1024*1024))
	}
}
