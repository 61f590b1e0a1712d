// Command contact-sync brings the contacts of one chatapp number in line
// with a CSV file: each row's contact is found by phone or created, its
// custom fields merged and the listed tags removed.
//
// The CSV has a header. Columns:
//
//	phone        required; any format, normalized with convo.NormalizePhone
//	name         required; used when the contact is created
//	cf:<field>   any number; a non-empty cell sets custom field <field>
//	             (merged: fields not in the file stay as they are; an empty
//	             cell leaves the field unchanged)
//	remove_tags  optional; tag ids to remove, separated by | or ;
//
// A bad row (bad phone, missing name, wrong number of columns, broken
// quoting) is reported on stderr with its line number and skipped. Each
// contact is found or created with Contacts.Ensure, so one created by
// someone else meanwhile counts as found, never twice. The summary counts
// rows created, updated (custom fields or a tag removal sent; the service
// has no read of custom fields, so a row that sets them is always sent),
// unchanged (nothing to send: tags to remove from a contact that has none
// make no call), skipped and failed. Exit code 1 when a row failed at the
// service or the run could not start, 0 otherwise.
//
// Rows are synced --concurrency at a time with convo.ParallelSeq, and
// reported in file order whatever the concurrency. When the service answers
// 429, every row in flight waits for its Retry-After and fewer rows run at
// once for a while; nothing is skipped. Running the same file again is safe,
// so an interrupted run is resumed by running it again.
//
// Without an account it runs on an embedded fake with demo data, whose
// chatapp number is 5511940000001:
//
//	go run ./examples/contact-sync --file examples/contact-sync/sample.csv --phone-number-id 5511940000001
//
// With your account (--phone-number-id is the provider_identifier of one of
// your chatapp accounts; the run lists them when it does not match):
//
//	CONVO_BASE_URL=https://api.example.com/v1 CONVO_API_KEY=... \
//	    go run ./examples/contact-sync --file contacts.csv --phone-number-id <id>
//
// --file - reads the CSV from standard input.
package main

import (
	"context"
	"encoding/csv"
	"errors"
	"flag"
	"fmt"
	"io"
	"iter"
	"maps"
	"os"
	"os/signal"
	"slices"
	"strings"

	convo "github.com/convoapi/convo-go"
	"github.com/convoapi/convo-go/examples/internal/demo"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// stdin is where --file - reads; tests replace it.
var stdin io.Reader = os.Stdin

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("contact-sync", flag.ContinueOnError)
	fs.SetOutput(stderr)
	file := fs.String("file", "", "CSV file to sync, - for standard input (required)")
	phoneNumberID := fs.String("phone-number-id", "", "provider_identifier of the chatapp account the contacts belong to (required)")
	concurrency := fs.Int("concurrency", convo.DefaultParallelLimit, "rows synced at once")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 1
	}
	fail := func(err error) int {
		fmt.Fprintln(stderr, "contact-sync:", err)
		return 1
	}
	if *file == "" || *phoneNumberID == "" {
		return fail(errors.New("--file and --phone-number-id are required"))
	}
	src := stdin
	if *file != "-" {
		f, err := os.Open(*file)
		if err != nil {
			return fail(err)
		}
		defer f.Close()
		src = f
	}
	// A bulk job gives a call more retries than the default: under a rate
	// limit a row should wait its turn, not fail.
	client, done, err := demo.Client(stderr, convo.WithMaxRetries(8))
	if err != nil {
		return fail(err)
	}
	defer done()
	if err := checkAccount(ctx, client, *phoneNumberID); err != nil {
		return fail(err)
	}

	s := &syncer{c: client, phoneNumberID: *phoneNumberID, out: stdout, errOut: stderr, counts: map[string]int{}}
	err = s.sync(ctx, src, *concurrency)
	fmt.Fprintf(stdout, "\nSummary: %d created, %d updated, %d unchanged, %d skipped, %d failed\n",
		s.counts["created"], s.counts["updated"], s.counts["unchanged"], s.counts["skipped"], s.counts["failed"])
	if err != nil {
		return fail(err)
	}
	if s.counts["failed"] > 0 {
		return 1
	}
	return 0
}

// checkAccount checks the account once, rather than failing every row with
// CHANNEL_NOT_FOUND, and names the right ones.
func checkAccount(ctx context.Context, c *convo.Client, phoneNumberID string) error {
	accounts, err := c.Channels.List(ctx)
	if err != nil {
		return fmt.Errorf("listing channel accounts: %w", err)
	}
	var ids []string
	for _, a := range accounts {
		if a.Channel == convo.ChannelChatapp && a.ProviderIdentifier == phoneNumberID {
			return nil
		} else if a.Channel == convo.ChannelChatapp {
			ids = append(ids, fmt.Sprintf("%s (%s)", a.ProviderIdentifier, a.DisplayName))
		}
	}
	return fmt.Errorf("--phone-number-id %s is not one of the company's chatapp accounts: %s", phoneNumberID, strings.Join(ids, ", "))
}

type syncer struct {
	c             *convo.Client
	phoneNumberID string
	out, errOut   io.Writer
	counts        map[string]int // rows by verdict
}

// row is one record of the file: a row to sync, the reason it is skipped,
// or the error that ends the file.
type row struct {
	line   int
	skip   string
	err    error
	phone  string // normalized
	name   string
	fields map[string]string
	tags   []string
}

// result is what syncing a row did.
type result struct {
	row
	verdict string // created, updated, unchanged; or skipped, failed
	did     []string
}

// sync syncs the rows, concurrency at a time, reporting each in file order.
func (s *syncer) sync(ctx context.Context, src io.Reader, concurrency int) error {
	rows, err := readRows(src)
	if err != nil {
		return err
	}
	for res, err := range convo.ParallelSeq(ctx, rows, s.syncRow, convo.ParallelLimit(concurrency)) {
		if ctx.Err() != nil {
			return fmt.Errorf("interrupted: %w", ctx.Err())
		} else if err != nil {
			return err
		}
		s.counts[res.verdict]++
		switch res.verdict {
		case "skipped":
			fmt.Fprintf(s.errOut, "line %d: skipped: %s\n", res.line, res.skip)
		case "failed":
			fmt.Fprintf(s.errOut, "line %d: %s: failed: %v\n", res.line, res.phone, res.err)
		default:
			detail := ""
			if len(res.did) > 0 {
				detail = " (" + strings.Join(res.did, "; ") + ")"
			}
			fmt.Fprintf(s.out, "line %d: %s %s: %s%s\n", res.line, res.phone, res.name, res.verdict, detail)
		}
	}
	return nil
}

// readRows reads the header, then yields the records one by one.
func readRows(src io.Reader) (iter.Seq[row], error) {
	r := csv.NewReader(src)
	r.FieldsPerRecord = -1 // a short or long row is one bad row, not the end of the file
	r.TrimLeadingSpace = true
	header, err := r.Read()
	if errors.Is(err, io.EOF) {
		return nil, errors.New("the file is empty: a header line is required")
	} else if err != nil {
		return nil, fmt.Errorf("reading the header: %w", err)
	}
	cols, err := parseHeader(header)
	if err != nil {
		return nil, err
	}
	return func(yield func(row) bool) {
		for {
			rec, err := r.Read()
			var perr *csv.ParseError
			var next row
			switch {
			case errors.Is(err, io.EOF):
				return
			case errors.As(err, &perr): // bad quoting spoils this record only
				next = row{line: perr.StartLine, skip: perr.Err.Error()}
			case err != nil:
				next = row{err: fmt.Errorf("reading the file: %w", err)}
			default:
				line, _ := r.FieldPos(0)
				next = cols.parse(line, rec)
			}
			if !yield(next) || next.err != nil {
				return
			}
		}
	}, nil
}

// syncRow brings one contact in line with its row; a failure at the service
// is the row's, reported with it. It runs concurrently with other rows.
func (s *syncer) syncRow(ctx context.Context, r row) (result, error) {
	if r.err != nil {
		return result{}, r.err
	}
	res := result{row: r, verdict: "skipped"}
	if r.skip == "" {
		if res.verdict, res.did, res.err = s.apply(ctx, r); res.err != nil {
			res.verdict = "failed"
		}
	}
	return res, ctx.Err()
}

func (s *syncer) apply(ctx context.Context, r row) (verdict string, did []string, err error) {
	// Ensure finds the contact or creates it; a contact created by someone
	// else meanwhile is found, never created twice.
	ct, created, err := s.c.Contacts.Ensure(ctx, &convo.CreateContactParams{PhoneNumberID: s.phoneNumberID, PhoneNumber: r.phone, Name: r.name})
	if err != nil {
		return "", nil, fmt.Errorf("finding or creating the contact (created: %t): %w", created, err)
	}
	verdict = "unchanged"
	if !created && ct.Name != r.name {
		did = append(did, fmt.Sprintf("name kept as %q", ct.Name))
	}
	if len(r.fields) > 0 {
		_, err := s.c.Contacts.UpdateCustomFields(ctx, &convo.UpdateCustomFieldsParams{PhoneNumberID: s.phoneNumberID, PhoneNumber: r.phone, CustomFields: r.fields})
		if err != nil {
			return "", nil, fmt.Errorf("merging custom fields: %w", err)
		}
		verdict, did = "updated", append(did, "custom fields "+strings.Join(slices.Sorted(maps.Keys(r.fields)), ","))
	}
	switch {
	case len(r.tags) > 0 && len(ct.TagNames()) > 0:
		_, err := s.c.Contacts.RemoveTags(ctx, &convo.RemoveTagsParams{PhoneNumberID: s.phoneNumberID, PhoneNumber: r.phone, TagIDs: r.tags})
		if err != nil {
			return "", nil, fmt.Errorf("removing tags: %w", err)
		}
		verdict, did = "updated", append(did, "tags removed if present "+strings.Join(r.tags, ","))
	case len(r.tags) > 0 && !created:
		did = append(did, "no tags to remove")
	}
	if created {
		verdict = "created"
	}
	return verdict, did, nil
}

// columns maps the header's column names to their index.
type columns map[string]int

func parseHeader(h []string) (columns, error) {
	cols := columns{}
	for i, name := range h {
		name = strings.TrimSpace(strings.TrimPrefix(name, "\ufeff")) // a byte-order mark from spreadsheet exports
		if _, dup := cols[name]; dup {
			return nil, fmt.Errorf("header: column %q appears twice", name)
		}
		field, isField := strings.CutPrefix(name, "cf:")
		if !slices.Contains([]string{"phone", "name", "remove_tags"}, name) && (!isField || field == "") {
			return nil, fmt.Errorf("header: unknown column %q (expected phone, name, cf:<field>, remove_tags)", name)
		}
		cols[name] = i
	}
	for _, required := range []string{"phone", "name"} {
		if _, ok := cols[required]; !ok {
			return nil, errors.New("header: the columns phone and name are required")
		}
	}
	return cols, nil
}

// parse reads one record; a bad one comes back with the reason to skip it.
func (c columns) parse(line int, rec []string) row {
	if len(rec) != len(c) {
		return row{line: line, skip: fmt.Sprintf("%d columns, the header has %d", len(rec), len(c))}
	}
	phone, err := convo.NormalizePhone(rec[c["phone"]])
	if err != nil {
		return row{line: line, skip: fmt.Sprintf("bad phone %q: %v", rec[c["phone"]], err)}
	}
	r := row{line: line, phone: phone, name: strings.TrimSpace(rec[c["name"]]), fields: map[string]string{}}
	if r.name == "" {
		return row{line: line, skip: "missing name"}
	}
	for name, i := range c {
		if field, ok := strings.CutPrefix(name, "cf:"); ok && strings.TrimSpace(rec[i]) != "" {
			r.fields[field] = strings.TrimSpace(rec[i])
		}
	}
	if i, ok := c["remove_tags"]; ok {
		for _, t := range strings.FieldsFunc(rec[i], func(r rune) bool { return r == '|' || r == ';' }) {
			if t = strings.TrimSpace(t); t != "" && !slices.Contains(r.tags, t) {
				r.tags = append(r.tags, t)
			}
		}
	}
	return r
}
