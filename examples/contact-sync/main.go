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
// A bad row (bad phone, missing name, wrong number of columns) is reported
// on stderr with its line number and skipped; every other row is still
// synced. Each row's contact is found or created with Contacts.Ensure (two
// calls: a creation, then a lookup), so a contact created by someone else
// meanwhile counts as found, never twice. The summary at the end counts
// created, updated, unchanged, skipped and failed rows: "updated" means
// custom fields or a tag removal were sent, "unchanged" that the contact
// exists and the row asks for nothing it could change (no custom field, and
// tags to remove only from a contact that has none, in which case no call is
// made). The service has no read of custom fields, so a row that sets them
// is always sent and counted as updated, even when the values were already
// those. Exit code: 1 when a row failed at the service (or the run could not
// start), 0 otherwise, skipped rows included.
//
// Rows are synced --concurrency at a time (default 8; 1 syncs one after the
// other): on a network with 100 ms of round trip that is the difference
// between minutes and an hour for ten thousand rows. The output is the same
// whatever the concurrency: one line per row, in file order. When the
// service answers 429, every row in flight waits for its Retry-After and
// fewer rows run at once for a while; nothing is skipped. On a terminal a
// progress line counts the rows done; elsewhere (a log) nothing but the
// rows and the summary is written.
//
// Running the same file again is safe: existing contacts are found, not
// created twice, and merging the same fields again changes nothing. So an
// interrupted run (Ctrl-C) is resumed by running it again.
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
	concurrency := fs.Int("concurrency", 8, "rows synced at once, 1 to 64")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 1
	}
	switch {
	case *file == "":
		fmt.Fprintln(stderr, "contact-sync: --file is required")
		return 1
	case *phoneNumberID == "":
		fmt.Fprintln(stderr, "contact-sync: --phone-number-id is required")
		return 1
	case *concurrency < 1 || *concurrency > 64:
		fmt.Fprintln(stderr, "contact-sync: --concurrency must be 1 to 64")
		return 1
	case fs.NArg() > 0:
		fmt.Fprintf(stderr, "contact-sync: unexpected argument %q\n", fs.Arg(0))
		return 1
	}

	src := stdin
	if *file != "-" {
		f, err := os.Open(*file)
		if err != nil {
			fmt.Fprintln(stderr, "contact-sync:", err)
			return 1
		}
		defer f.Close()
		src = f
	}

	// A bulk job gives a call more retries than the default: under a rate
	// limit a row should wait its turn, not fail.
	client, done, err := demo.Client(stderr, convo.WithMaxRetries(8))
	if err != nil {
		fmt.Fprintln(stderr, "contact-sync:", err)
		return 1
	}
	defer done()

	// Check the account once, rather than failing every row with
	// CHANNEL_NOT_FOUND.
	if err := checkAccount(ctx, client, *phoneNumberID); err != nil {
		fmt.Fprintln(stderr, "contact-sync:", err)
		return 1
	}

	s := &syncer{c: client, phoneNumberID: *phoneNumberID, out: stdout, errOut: stderr,
		concurrency: *concurrency, tty: demo.IsTerminal(stderr)}
	err = s.sync(ctx, src)
	s.showProgress(true)
	if err != nil {
		fmt.Fprintln(stderr, "contact-sync:", err)
		s.summary()
		return 1
	}
	s.summary()
	if s.failed > 0 {
		return 1
	}
	return 0
}

func checkAccount(ctx context.Context, c *convo.Client, phoneNumberID string) error {
	accounts, err := c.Channels.List(ctx)
	if err != nil {
		return fmt.Errorf("listing channel accounts: %w", err)
	}
	var ids []string
	for _, a := range accounts {
		if a.Channel != convo.ChannelChatapp {
			continue
		}
		if a.ProviderIdentifier == phoneNumberID {
			return nil
		}
		ids = append(ids, fmt.Sprintf("%s (%s)", a.ProviderIdentifier, a.DisplayName))
	}
	if len(ids) == 0 {
		return fmt.Errorf("--phone-number-id %s: the company has no chatapp account", phoneNumberID)
	}
	return fmt.Errorf("--phone-number-id %s is not one of the company's chatapp accounts: %s", phoneNumberID, strings.Join(ids, ", "))
}

// columns is the layout read from the header.
type columns struct {
	n          int
	phone      int
	name       int
	removeTags int            // -1 when absent
	fields     map[int]string // column index → custom field name
}

func parseHeader(h []string) (*columns, error) {
	cols := &columns{n: len(h), phone: -1, name: -1, removeTags: -1, fields: map[int]string{}}
	seen := map[string]bool{}
	for i, raw := range h {
		name := strings.TrimSpace(raw)
		if i == 0 {
			name = strings.TrimPrefix(name, "\ufeff") // a byte-order mark from spreadsheet exports
		}
		if seen[name] {
			return nil, fmt.Errorf("header: column %q appears twice", name)
		}
		seen[name] = true
		switch {
		case name == "phone":
			cols.phone = i
		case name == "name":
			cols.name = i
		case name == "remove_tags":
			cols.removeTags = i
		case strings.HasPrefix(name, "cf:") && strings.TrimSpace(name[3:]) != "":
			cols.fields[i] = strings.TrimSpace(name[3:])
		default:
			return nil, fmt.Errorf("header: unknown column %q (expected phone, name, cf:<field>, remove_tags)", name)
		}
	}
	if cols.phone < 0 || cols.name < 0 {
		return nil, errors.New("header: the columns phone and name are required")
	}
	return cols, nil
}

// row is one valid line of the file.
type row struct {
	line   int
	phone  string // normalized
	name   string
	fields map[string]string
	tags   []string
}

func (c *columns) parse(line int, rec []string) (*row, error) {
	if len(rec) != c.n {
		return nil, fmt.Errorf("%d columns, the header has %d", len(rec), c.n)
	}
	phone, err := convo.NormalizePhone(rec[c.phone])
	if err != nil {
		return nil, fmt.Errorf("bad phone %q: %v", rec[c.phone], err)
	}
	r := &row{line: line, phone: phone, name: strings.TrimSpace(rec[c.name]), fields: map[string]string{}}
	if r.name == "" {
		return nil, errors.New("missing name")
	}
	for i, f := range c.fields {
		if v := strings.TrimSpace(rec[i]); v != "" {
			r.fields[f] = v
		}
	}
	if c.removeTags >= 0 {
		for _, t := range strings.FieldsFunc(rec[c.removeTags], func(r rune) bool { return r == '|' || r == ';' }) {
			if t = strings.TrimSpace(t); t != "" && !slices.Contains(r.tags, t) {
				r.tags = append(r.tags, t)
			}
		}
	}
	return r, nil
}

type syncer struct {
	c             *convo.Client
	phoneNumberID string
	out, errOut   io.Writer
	concurrency   int
	tty           bool // stderr is a terminal: keep a progress line there

	created, updated, unchanged, skipped, failed int
}

// item is one record of the file in file order: a row to sync, or the
// reason it is skipped.
type item struct {
	line int
	row  *row
	skip string
}

// outcome is what syncing a row did.
type outcome struct {
	verdict string // created, updated, unchanged
	did     []string
}

// sync reads the file and syncs its rows, s.concurrency at a time, writing
// the result of each in file order.
func (s *syncer) sync(ctx context.Context, src io.Reader) error {
	r := csv.NewReader(src)
	r.FieldsPerRecord = -1 // a short or long row is one bad row, not the end of the file
	r.TrimLeadingSpace = true
	header, err := r.Read()
	if errors.Is(err, io.EOF) {
		return errors.New("the file is empty: a header line is required")
	}
	if err != nil {
		return fmt.Errorf("reading the header: %w", err)
	}
	cols, err := parseHeader(header)
	if err != nil {
		return err
	}
	var readErr error // set by items before it ends; read after the loop
	items := func(yield func(item) bool) {
		for {
			rec, err := r.Read()
			if errors.Is(err, io.EOF) {
				return
			}
			var perr *csv.ParseError
			if errors.As(err, &perr) {
				// Bad quoting spoils this record only: report it and go on.
				if !yield(item{line: perr.StartLine, skip: perr.Err.Error()}) {
					return
				}
				continue
			}
			if err != nil {
				readErr = fmt.Errorf("reading the file: %w", err)
				return
			}
			line, _ := r.FieldPos(0)
			rw, err := cols.parse(line, rec)
			it := item{line: line, row: rw}
			if err != nil {
				it = item{line: line, skip: err.Error()}
			}
			if !yield(it) {
				return
			}
		}
	}
	type result struct {
		it  item
		out outcome
		err error
	}
	syncItem := func(ctx context.Context, it item) (result, error) {
		if it.row == nil {
			return result{it: it}, nil
		}
		out, err := s.syncRow(ctx, it.row)
		return result{it, out, err}, nil // a failed row is reported, never fatal
	}
	for res, err := range convo.ParallelSeq(ctx, items, syncItem, convo.ParallelLimit(s.concurrency)) {
		if err != nil { // only the context ends the run
			return fmt.Errorf("interrupted: %w", err)
		}
		switch {
		case res.it.row == nil:
			s.skip(res.it.line, res.it.skip)
		case res.err != nil && ctx.Err() != nil:
			return fmt.Errorf("line %d: interrupted: %w", res.it.line, ctx.Err())
		case res.err != nil:
			s.failed++
			fmt.Fprintf(s.errOut, "line %d: %s: failed: %v\n", res.it.line, res.it.row.phone, res.err)
		default:
			s.report(res.it.row, res.out)
		}
		s.showProgress(false)
	}
	return readErr
}

func (s *syncer) skip(line int, why string) {
	s.skipped++
	s.clearProgress()
	fmt.Fprintf(s.errOut, "line %d: skipped: %s\n", line, why)
}

func (s *syncer) report(r *row, o outcome) {
	switch o.verdict {
	case "created":
		s.created++
	case "unchanged":
		s.unchanged++
	default:
		s.updated++
	}
	detail := ""
	if len(o.did) > 0 {
		detail = " (" + strings.Join(o.did, "; ") + ")"
	}
	fmt.Fprintf(s.out, "line %d: %s %s: %s%s\n", r.line, r.phone, r.name, o.verdict, detail)
}

// syncRow brings one contact in line with its row. It runs concurrently
// with other rows: it only reads s's settings.
func (s *syncer) syncRow(ctx context.Context, r *row) (outcome, error) {
	var did []string
	// Ensure finds the contact or creates it; a contact created by someone
	// else meanwhile is found, never created twice.
	ct, isNew, err := s.c.Contacts.Ensure(ctx, &convo.CreateContactParams{PhoneNumberID: s.phoneNumberID, PhoneNumber: r.phone, Name: r.name})
	switch {
	case err != nil && isNew:
		return outcome{}, fmt.Errorf("created the contact, then: %w", err)
	case err != nil:
		return outcome{}, fmt.Errorf("finding or creating the contact: %w", err)
	case !isNew && ct.Name != r.name:
		did = append(did, fmt.Sprintf("name kept as %q", ct.Name))
	}
	hasTags := len(ct.TagNames()) > 0

	wrote := false
	if len(r.fields) > 0 {
		_, err := s.c.Contacts.UpdateCustomFields(ctx, &convo.UpdateCustomFieldsParams{
			PhoneNumberID: s.phoneNumberID, PhoneNumber: r.phone, CustomFields: r.fields,
		})
		if err != nil {
			return outcome{}, fmt.Errorf("merging custom fields: %w", err)
		}
		names := make([]string, 0, len(r.fields))
		for k := range r.fields {
			names = append(names, k)
		}
		slices.Sort(names)
		did = append(did, "custom fields "+strings.Join(names, ","))
		wrote = true
	}
	if len(r.tags) > 0 && hasTags {
		_, err := s.c.Contacts.RemoveTags(ctx, &convo.RemoveTagsParams{
			PhoneNumberID: s.phoneNumberID, PhoneNumber: r.phone, TagIDs: r.tags,
		})
		if err != nil {
			return outcome{}, fmt.Errorf("removing tags: %w", err)
		}
		did = append(did, "tags removed if present "+strings.Join(r.tags, ","))
		wrote = true
	} else if len(r.tags) > 0 && !isNew {
		did = append(did, "no tags to remove")
	}

	verdict := "updated"
	switch {
	case isNew:
		verdict = "created"
	case !wrote:
		verdict = "unchanged"
	}
	return outcome{verdict: verdict, did: did}, nil
}

// showProgress keeps a line on a terminal counting the rows done; it
// writes nothing elsewhere.
func (s *syncer) showProgress(final bool) {
	if !s.tty {
		return
	}
	end := ""
	if final {
		end = "\n"
	}
	fmt.Fprintf(s.errOut, "\rcontact-sync: %d rows done (%d created, %d updated, %d unchanged, %d skipped, %d failed)%s",
		s.created+s.updated+s.unchanged+s.skipped+s.failed, s.created, s.updated, s.unchanged, s.skipped, s.failed, end)
}

// clearProgress erases the progress line before a message on stderr.
func (s *syncer) clearProgress() {
	if s.tty {
		fmt.Fprint(s.errOut, "\r\033[K")
	}
}

func (s *syncer) summary() {
	fmt.Fprintf(s.out, "\nSummary: %d created, %d updated, %d unchanged, %d skipped, %d failed\n",
		s.created, s.updated, s.unchanged, s.skipped, s.failed)
}
