// Command contact-sync brings the contacts of one chatapp number in line
// with a CSV file: each row's contact is looked up by phone, created when
// missing, its custom fields merged and the listed tags removed.
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
// synced. A contact created by someone else between the lookup and the
// creation (CONTACT_EXISTS) counts as found. The summary at the end counts
// created, updated, unchanged, skipped and failed rows. Exit code: 1 when
// a row failed at the service (or the run could not start), 0 otherwise,
// skipped rows included.
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
	file := fs.String("file", "", "CSV file to sync (- for standard input)")
	phoneNumberID := fs.String("phone-number-id", "", "provider_identifier of the chatapp account the contacts belong to (required)")
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

	client, done, err := demo.Client(stderr)
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

	s := &syncer{c: client, phoneNumberID: *phoneNumberID, out: stdout, errOut: stderr}
	if err := s.sync(ctx, src); err != nil {
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

	created, updated, unchanged, skipped, failed int
}

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
	for {
		rec, err := r.Read()
		if errors.Is(err, io.EOF) {
			return nil
		}
		var perr *csv.ParseError
		if errors.As(err, &perr) {
			// Bad quoting spoils this record only: report it and go on.
			s.skip(perr.StartLine, perr.Err.Error())
			continue
		}
		if err != nil {
			return fmt.Errorf("reading the file: %w", err)
		}
		line, _ := r.FieldPos(0)
		rw, err := cols.parse(line, rec)
		if err != nil {
			s.skip(line, err.Error())
			continue
		}
		if err := s.syncRow(ctx, rw); err != nil {
			if ctx.Err() != nil {
				return fmt.Errorf("line %d: interrupted: %w", line, ctx.Err())
			}
			s.failed++
			fmt.Fprintf(s.errOut, "line %d: %s: failed: %v\n", line, rw.phone, err)
		}
	}
}

func (s *syncer) skip(line int, why string) {
	s.skipped++
	fmt.Fprintf(s.errOut, "line %d: skipped: %s\n", line, why)
}

func (s *syncer) syncRow(ctx context.Context, r *row) error {
	var did []string
	ct, err := s.c.Contacts.Lookup(ctx, &convo.LookupContactParams{PhoneNumberID: s.phoneNumberID, PhoneNumber: r.phone})
	isNew := false
	switch {
	case errors.Is(err, convo.ErrContactNotFound):
		_, err = s.c.Contacts.Create(ctx, &convo.CreateContactParams{PhoneNumberID: s.phoneNumberID, PhoneNumber: r.phone, Name: r.name})
		switch {
		case errors.Is(err, convo.ErrContactExists):
			// Created meanwhile (an inbound message, another sync): the
			// contact is there, which is all we wanted.
			did = append(did, "found (created concurrently)")
		case err != nil:
			return fmt.Errorf("creating the contact: %w", err)
		default:
			isNew = true
		}
	case err != nil:
		return fmt.Errorf("looking up the contact: %w", err)
	default:
		if ct.Name != r.name {
			did = append(did, fmt.Sprintf("name kept as %q", ct.Name))
		}
	}

	if len(r.fields) > 0 {
		_, err := s.c.Contacts.UpdateCustomFields(ctx, &convo.UpdateCustomFieldsParams{
			PhoneNumberID: s.phoneNumberID, PhoneNumber: r.phone, CustomFields: r.fields,
		})
		if err != nil {
			return fmt.Errorf("merging custom fields: %w", err)
		}
		names := make([]string, 0, len(r.fields))
		for k := range r.fields {
			names = append(names, k)
		}
		slices.Sort(names)
		did = append(did, "custom fields "+strings.Join(names, ","))
	}
	if len(r.tags) > 0 {
		_, err := s.c.Contacts.RemoveTags(ctx, &convo.RemoveTagsParams{
			PhoneNumberID: s.phoneNumberID, PhoneNumber: r.phone, TagIDs: r.tags,
		})
		if err != nil {
			return fmt.Errorf("removing tags: %w", err)
		}
		did = append(did, "tags removed if present "+strings.Join(r.tags, ","))
	}

	verdict := "updated"
	switch {
	case isNew:
		verdict = "created"
		s.created++
	case len(r.fields) == 0 && len(r.tags) == 0:
		verdict = "unchanged"
		s.unchanged++
	default:
		s.updated++
	}
	detail := ""
	if len(did) > 0 {
		detail = " (" + strings.Join(did, "; ") + ")"
	}
	fmt.Fprintf(s.out, "line %d: %s %s: %s%s\n", r.line, r.phone, r.name, verdict, detail)
	return nil
}

func (s *syncer) summary() {
	fmt.Fprintf(s.out, "\nSummary: %d created, %d updated, %d unchanged, %d skipped, %d failed\n",
		s.created, s.updated, s.unchanged, s.skipped, s.failed)
}
