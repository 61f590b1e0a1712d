// Command anomaly-sweep is the intended daily sweep of the anomaly report
// (OpenAPI getAnomalies; docs/behaviour.md, Anomaly report): the
// conversations waiting for an answer, bucket by bucket, each bucket as a
// table worst first, and an exit code a scheduler can act on.
//
// Exit codes: 0 nothing waits longer than --max-wait; 2 at least one
// conversation does (they are listed at the end); 1 the sweep failed (a bad
// flag, only one of CONVO_BASE_URL and CONVO_API_KEY set, or an error from
// the service, e.g. an unknown bucket name). Under `go run`, go itself exits
// 1 for any non-zero code, so a scheduler that acts on 2 runs the built
// binary:
//
//	go build -o anomaly-sweep ./examples/anomaly-sweep && ./anomaly-sweep; echo $?
//
// Without an account it runs on an embedded fake loaded with demo data, in
// which conversations have waited past 12h and past 6h: the sweep ends with
// an ALERT line and exit code 2, here and above.
//
//	go run ./examples/anomaly-sweep --max-wait 6h --include unassigned
//
// With your account, once a day from cron or CI:
//
//	CONVO_BASE_URL=https://api.example.com/v1 CONVO_API_KEY=... \
//	    go run ./examples/anomaly-sweep --threshold 4 --limit 50 --max-wait 12h
//
// The service limits the endpoint to about one pass per day: schedule this,
// do not poll it. A conversation enters a bucket only while its last inbound
// message is younger than its channel's ceiling (24h on chatapp), so a
// --max-wait at or beyond the ceiling never fires.
package main

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
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
		fmt.Fprintln(stderr, "Usage: anomaly-sweep [flags]\n\nExit codes (of the built binary; go run exits 1 for any): 0 nothing waits longer\nthan --max-wait, 1 the sweep failed, 2 at least one conversation waits longer.\n\nFlags:")
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
	params := &convo.AnomaliesParams{ThresholdHours: *threshold, Limit: *limit}
	for b := range strings.SplitSeq(*include, ",") {
		if b != "" {
			params.Include = append(params.Include, convo.Bucket(strings.TrimSpace(b)))
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
	switch {
	case len(over) > 0:
		fmt.Fprintf(stdout, "\nALERT: %d waiting longer than %gh: %s\n", len(over), maxWait.Hours(), strings.Join(over, ", "))
		return exitTooLong
	case *maxWait > 0:
		fmt.Fprintf(stdout, "\nOK: no conversation has waited longer than %gh.\n", maxWait.Hours())
	}
	return exitOK
}

// explain turns the errors a sweep meets into one actionable line: branch on
// the error's code, never on its text.
func explain(err error) string {
	var apiErr *convo.Error
	if !errors.As(err, &apiErr) {
		return err.Error()
	}
	switch apiErr.Code {
	case convo.CodeInvalidBucket:
		if d, ok := apiErr.InvalidBucket(); ok {
			return fmt.Sprintf("%s: %s Valid buckets: %v; --include takes the opt-in ones: %v.", apiErr.Code, apiErr.Message, d.ValidBuckets, d.OptIn)
		}
	case convo.CodeInvalidParam:
		return fmt.Sprintf("%s: %s (--threshold takes 1 to 24 hours, --limit 1 to 100)", apiErr.Code, apiErr.Message)
	case convo.CodeRateLimited:
		return fmt.Sprintf("rate limited, retry after %s: this report is meant for one pass a day", apiErr.RetryAfter)
	}
	return err.Error()
}

// printReport writes every bucket (the service sends each worst first) and
// returns the ids of the conversations that waited longer than maxWait, each
// once, worst first.
func printReport(out io.Writer, r *convo.AnomalyReport, maxWait time.Duration) []string {
	var ceilings []string
	for _, ch := range slices.Sorted(maps.Keys(r.Window.CeilingHoursByChannel)) {
		if ch == convo.ChannelSMS { // one-way: no conversation of it is ever in a bucket
			continue
		}
		ceilings = append(ceilings, fmt.Sprintf("%s %dh", ch, r.Window.CeilingHoursByChannel[ch]))
	}
	fmt.Fprintf(out, "Anomaly report: last inbound at least %dh ago, up to each channel's ceiling (%s)\n",
		r.Window.ThresholdHours, strings.Join(ceilings, ", "))

	waited := map[string]float64{} // conversation id → hours, over maxWait
	for _, nb := range []struct {
		name   convo.Bucket
		bucket *convo.AnomalyBucket
	}{{convo.BucketUnanswered, &r.Buckets.Unanswered}, {convo.BucketUnassigned, r.Buckets.Unassigned}, {convo.BucketAutomationOnly, r.Buckets.AutomationOnly}} {
		if nb.bucket == nil {
			continue // an opt-in bucket not asked for
		}
		fmt.Fprintf(out, "\n%s: %d", nb.name, nb.bucket.Count)
		if len(nb.bucket.Items) < nb.bucket.Count {
			fmt.Fprintf(out, " (showing the worst %d; raise --limit for more)", len(nb.bucket.Items))
		}
		fmt.Fprintln(out)
		tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
		for i, it := range nb.bucket.Items {
			if i == 0 {
				fmt.Fprintln(tw, "  WAITING\tCONVERSATION\tCHANNEL\tASSIGNED\tUNREAD\tLAST INBOUND\tLAST MESSAGE")
			}
			mark := ""
			if maxWait > 0 && it.WaitingHours > maxWait.Hours() {
				mark, waited[it.ConversationID] = "\t> max-wait", it.WaitingHours
			}
			fmt.Fprintf(tw, "  %.1fh\t%s\t%s\t%t\t%d\t%s\t%s%s\n", it.WaitingHours, it.ConversationID, it.Channel,
				it.Assigned, it.UnreadCount, stamp(it.LastInboundAt), stamp(it.LastMessageAt), mark)
		}
		tw.Flush()
	}
	fmt.Fprintf(out, "\n%s: %d (count only: open conversations the contact never wrote to)\n",
		convo.BucketNeverEngaged, r.Buckets.NeverEngaged.Count)

	return slices.SortedFunc(maps.Keys(waited), func(a, b string) int {
		return cmp.Or(cmp.Compare(waited[b], waited[a]), strings.Compare(a, b))
	})
}

func stamp(t time.Time) string { return t.UTC().Format("2006-01-02 15:04 UTC") }
