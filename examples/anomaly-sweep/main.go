// Command anomaly-sweep is the intended daily sweep of the anomaly report
// (spec §4.4): the conversations waiting for an answer, bucket by bucket,
// each bucket as a table sorted worst first, and an exit code a scheduler
// can act on.
//
// Exit codes of the program: 0 nothing waits longer than --max-wait; 2 at
// least one conversation does (they are listed at the end); 1 the sweep
// failed (a bad flag, only one of CONVO_BASE_URL and CONVO_API_KEY set, or an
// error from the service, e.g. an unknown bucket name). The built binary
// exits with them as they are. Under `go run`, go itself exits 1 for any
// non-zero code and prints "exit status 2" on stderr, so a scheduler that acts
// on 2 runs the built binary:
//
//	go build -o anomaly-sweep ./examples/anomaly-sweep && ./anomaly-sweep; echo $?
//
// Without an account it runs on an embedded fake loaded with demo data:
//
//	go run ./examples/anomaly-sweep
//	go run ./examples/anomaly-sweep --max-wait 6h --include unassigned
//
// With your account, once a day from cron or CI:
//
//	CONVO_BASE_URL=https://api.example.com/v1 CONVO_API_KEY=... \
//	    go run ./examples/anomaly-sweep --threshold 4 --limit 50 --max-wait 12h
//
// The service serves the report from a cache of a few minutes and limits the
// endpoint to about one pass per day: schedule this, do not poll it. A
// conversation enters a bucket only while its last inbound message is younger
// than its channel's ceiling (24h on chatapp), so a --max-wait at or beyond
// the ceiling never fires.
package main

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	convo "github.com/convoapi/convo-go"
	"github.com/convoapi/convo-go/examples/internal/demo"
)

// Exit codes.
const (
	exitOK      = 0
	exitFailed  = 1
	exitTooLong = 2
)

// usage heads --help; the flags follow it.
const usage = `Usage: anomaly-sweep [flags]

Prints the conversations waiting for an answer, worst first. No flag is
required. Uses your account when CONVO_BASE_URL and CONVO_API_KEY are both
set, demo data when neither is; only one of them set is an error.

Exit codes (the built binary returns them as they are):
  0  nothing waits longer than --max-wait
  1  the sweep failed: a bad flag, half the configuration, an error from the service
  2  at least one conversation waits longer than --max-wait
Under "go run", go exits 1 for any non-zero code and prints "exit status N";
build the program (go build ./examples/anomaly-sweep) to act on 2.

Flags:
`

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("anomaly-sweep", flag.ContinueOnError)
	fs.SetOutput(stderr)
	threshold := fs.Int("threshold", 0, "hours since the last inbound message to enter a bucket, 1-24 (0: the service's default, 4)")
	limit := fs.Int("limit", 0, "conversations listed per bucket, 1-100 (0: the service's default, 20)")
	include := fs.String("include", "unassigned,automation_only", "comma list of opt-in buckets (unassigned, automation_only); empty for none")
	maxWait := fs.Duration("max-wait", 12*time.Hour, "exit 2 when a listed conversation has waited longer than this (0: never)")
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), usage)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return exitFailed
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "anomaly-sweep: unexpected argument %q\n", fs.Arg(0))
		return exitFailed
	}
	if *maxWait < 0 {
		fmt.Fprintln(stderr, "anomaly-sweep: --max-wait must not be negative")
		return exitFailed
	}

	params := &convo.AnomaliesParams{ThresholdHours: *threshold, Limit: *limit}
	for _, b := range strings.Split(*include, ",") {
		if b = strings.TrimSpace(b); b != "" {
			params.Include = append(params.Include, convo.Bucket(b))
		}
	}

	client, done, err := demo.Client(stderr)
	if err != nil {
		fmt.Fprintln(stderr, "anomaly-sweep:", err)
		return exitFailed
	}
	defer done()

	report, err := client.Anomalies.Get(ctx, params)
	if err != nil {
		fmt.Fprintln(stderr, "anomaly-sweep:", explain(err))
		return exitFailed
	}

	over := printReport(stdout, report, *maxWait)
	if len(over) == 0 {
		if *maxWait > 0 {
			fmt.Fprintf(stdout, "\nOK: no conversation has waited longer than %s.\n", hours(*maxWait))
		}
		return exitOK
	}
	noun := "conversations wait"
	if len(over) == 1 {
		noun = "conversation waits"
	}
	fmt.Fprintf(stdout, "\nALERT: %d %s longer than %s: %s\n", len(over), noun, hours(*maxWait), strings.Join(over, ", "))
	return exitTooLong
}

// explain turns the errors a sweep meets into one actionable line.
func explain(err error) string {
	var apiErr *convo.Error
	if !errors.As(err, &apiErr) {
		return err.Error()
	}
	switch apiErr.Code {
	case convo.CodeInvalidBucket:
		if d, ok := apiErr.InvalidBucket(); ok {
			return fmt.Sprintf("%s: %s Valid buckets: %s; --include takes the opt-in ones: %s.",
				apiErr.Code, apiErr.Message, join(d.ValidBuckets), join(d.OptIn))
		}
	case convo.CodeInvalidParam:
		return fmt.Sprintf("%s: %s (--threshold takes 1 to 24 hours, --limit 1 to 100)", apiErr.Code, apiErr.Message)
	case convo.CodeRateLimited:
		return fmt.Sprintf("rate limited (%s), retry after %s: this report is meant for one pass a day", apiErr.Code, apiErr.RetryAfter)
	case convo.CodeUnauthorized:
		return fmt.Sprintf("%s: %s (check %s)", apiErr.Code, apiErr.Message, convo.EnvAPIKey)
	}
	return err.Error()
}

// printReport writes every bucket and returns the ids of the conversations
// (each once, worst first) that waited longer than maxWait.
func printReport(out io.Writer, r *convo.AnomalyReport, maxWait time.Duration) []string {
	fmt.Fprintf(out, "Anomaly report: last inbound at least %dh ago, up to each channel's ceiling (%s)\n",
		r.Window.ThresholdHours, ceilings(r.Window.CeilingHoursByChannel))

	type named struct {
		name   convo.Bucket
		bucket *convo.AnomalyBucket
	}
	buckets := []named{{convo.BucketUnanswered, &r.Buckets.Unanswered}}
	if r.Buckets.Unassigned != nil {
		buckets = append(buckets, named{convo.BucketUnassigned, r.Buckets.Unassigned})
	}
	if r.Buckets.AutomationOnly != nil {
		buckets = append(buckets, named{convo.BucketAutomationOnly, r.Buckets.AutomationOnly})
	}

	type late struct {
		id    string
		hours float64
	}
	var overs []late
	seen := map[string]bool{}
	for _, nb := range buckets {
		items := slices.Clone(nb.bucket.Items)
		// The service sends them worst first already (longest wait, ties by
		// conversation id); sorting here keeps the promise whatever the source.
		slices.SortStableFunc(items, func(a, b convo.AnomalyItem) int {
			return cmp.Or(cmp.Compare(b.WaitingHours, a.WaitingHours), cmp.Compare(a.ConversationID, b.ConversationID))
		})
		fmt.Fprintf(out, "\n%s: %d", nb.name, nb.bucket.Count)
		if len(items) < nb.bucket.Count {
			fmt.Fprintf(out, " (showing the worst %d; raise --limit for more)", len(items))
		}
		fmt.Fprintln(out)
		if len(items) == 0 {
			continue
		}
		tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "  WAITING\tCONVERSATION\tCHANNEL\tASSIGNED\tUNREAD\tLAST INBOUND\tLAST MESSAGE")
		for _, it := range items {
			mark := ""
			if maxWait > 0 && it.WaitingHours > maxWait.Hours() {
				mark = "\t> max-wait"
				if !seen[it.ConversationID] {
					seen[it.ConversationID] = true
					overs = append(overs, late{it.ConversationID, it.WaitingHours})
				}
			}
			assigned := "no"
			if it.Assigned {
				assigned = "yes"
			}
			fmt.Fprintf(tw, "  %.1fh\t%s\t%s\t%s\t%d\t%s\t%s%s\n", it.WaitingHours, it.ConversationID, it.Channel,
				assigned, it.UnreadCount, stamp(it.LastInboundAt), stamp(it.LastMessageAt), mark)
		}
		tw.Flush()
	}
	fmt.Fprintf(out, "\n%s: %d (count only: open conversations the contact never wrote to)\n",
		convo.BucketNeverEngaged, r.Buckets.NeverEngaged.Count)

	slices.SortStableFunc(overs, func(a, b late) int { return cmp.Compare(b.hours, a.hours) })
	ids := make([]string, len(overs))
	for i, o := range overs {
		ids[i] = o.id
	}
	return ids
}

func ceilings(m map[convo.Channel]int) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, string(k))
	}
	slices.Sort(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s %dh", k, m[convo.Channel(k)])
	}
	return strings.Join(parts, ", ")
}

func join(bs []convo.Bucket) string {
	s := make([]string, len(bs))
	for i, b := range bs {
		s[i] = string(b)
	}
	return strings.Join(s, ", ")
}

func stamp(t time.Time) string {
	return t.UTC().Format("2006-01-02 15:04 UTC")
}

// hours prints a duration the way people say it: 12h, 90m, 1h30m.
func hours(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}
