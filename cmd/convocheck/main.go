// Command convocheck checks that a server answers as the conversational
// messaging service does: run it against the real service with your key to
// see whether our fake (package fake, cmd/convofake) can stand in for it,
// or against the fake to see that it still matches.
//
//	convocheck --base-url https://api.example.com/v1 --api-key "$CONVO_API_KEY"
//	convocheck --base-url http://127.0.0.1:8080/v1 --api-key fake-api-key --anomalies --json
//	convocheck --replay run.jsonl --base-url http://127.0.0.1:8080/v1 --api-key fake-api-key
//
// Exit codes: 0 every check passed or was skipped (or a replay found no
// difference); 1 a check failed (or a replay found a difference); 2 it
// could not run (bad flags, server unreachable, the key refused in every
// form) or stopped early (a 429, the timeout). --help says what each mode
// sends and what stays behind on the service.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/convoapi/convo-go/conformance"
)

const usage = `Usage: convocheck --base-url URL --api-key KEY [flags]
       convocheck --replay FILE --base-url URL --api-key KEY [--json]
       convocheck record --upstream URL --out FILE [--listen 127.0.0.1:PORT] [--pseudonymise]
       convocheck seed FILE > seed.json
       convocheck --version

Checks, at the wire and then through the Go SDK, that the server at URL answers
as the service's interface specification and docs/behaviour.md say: envelopes,
field types, enums and nulls, order, paging and cursors, filters and bounds,
error codes and texts, the three key forms, refused keys, unknown paths, the
anomaly report, attachments. One line per check (pass, fail, skip with a
reason) with its basis: spec (the specification states the rule, and a failed
check quotes its sentence), decision (the specification leaves the point open
and docs/behaviour.md decides it) or sdk (the Go SDK decodes the answers);
then a summary; --json writes the report as JSON.

What it sends:
  By default it only READS: GET requests, at most --max-requests (default %d),
  one every --pace (default %s), within --timeout (default %s). Three of them
  carry no key, a wrong key, or the key in the query string (api_key=), to see
  them refused. It asks for ONE anomaly report (the service intends the report
  for about one pass a day); --anomalies asks for about a dozen (bounds, an
  unknown bucket, the opt-in buckets, the cache): use it on the fake, not on
  the service. It stops at the first 429 and never tries to reach the rate
  limit; it reports the rate-limit headers the server sends. It downloads one
  attachment when it finds one. Nothing stays behind.
  --write also WRITES on the contact you name with --phone-number-id (the
  provider_identifier of one of your chatapp numbers) and --phone-number (a
  test number you own): it creates that contact (a second run finds it:
  409 CONTACT_EXISTS), sets its custom field convocheck_run to the time of the
  run, removes a tag id it does not carry, and cancels its scheduled sequence,
  plus requests that each write refuses (missing fields, an unknown
  phone_number_id, a phone no contact has), and cancels again, with and
  without phone_number_id. The service has no delete: the contact, its custom
  field and its canceled sequence STAY BEHIND. With $CONVOFAKE_ADMIN_URL and
  $CONVOFAKE_ADMIN_TOKEN of a convofake it also sets two more custom fields
  and reads them back through the admin API (merged, not replaced), which the
  API cannot show.
  --spend-rate-limit, FOR FAKES ONLY, sends requests without pacing until the
  server answers 429, then one in each other key form, to check that the three
  forms count alike toward the limit. Against the service it spends your
  account's shared request limit: never use it there.
  --replay FILE sends the requests of a recording (convocheck record) to URL
  and reports every difference between its answers and the recorded ones,
  field by field (cursors are followed, not replayed; error ids, envelope
  timestamps and temporary file addresses are not compared). When
  $CONVOFAKE_ADMIN_URL and $CONVOFAKE_ADMIN_TOKEN are set (convofake prints
  them), it first moves that convofake's clock to each exchange's recorded
  time, so that what the server computes from its clock is computed at the
  recorded moment. The read window's since and a file's expires_at are
  compared by their distance to the envelope's timestamp (within 1s), an
  anomaly's waiting_hours within 0.2 (the report's cache).

  record is a recording proxy for clients in any language, seed turns a
  recording into a seed for convofake --seed: convocheck record --help.

The key is read from --api-key, --api-key-file or $CONVO_API_KEY and is
never printed.

Exit codes: 0 all checks passed or were skipped (replay: no difference);
1 a check failed (replay: a difference); 2 it could not run (bad flags,
unreachable, the key refused in every form) or stopped early (a 429, the
timeout).

Flags:
`

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// options are the parsed flags.
type options struct {
	baseURL, apiKey, apiKeyFile string
	jsonOut, write, anomalies   bool
	spendRateLimit              bool
	phoneNumberID, phoneNumber  string
	maxRequests                 int
	pace, timeout               time.Duration
	insecure                    bool
	replay                      string
}

func parse(args []string, stderr io.Writer) (*options, error) {
	o := &options{}
	fs := flag.NewFlagSet("convocheck", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, usage, conformance.DefaultMaxRequests, conformance.DefaultPace, conformance.DefaultTimeout)
		fs.PrintDefaults()
	}
	fs.StringVar(&o.baseURL, "base-url", os.Getenv("CONVO_BASE_URL"), "the API's base `URL`, ending in /v1 (default $CONVO_BASE_URL)")
	fs.StringVar(&o.apiKey, "api-key", "", "the API `KEY` (default $CONVO_API_KEY); never printed")
	fs.StringVar(&o.apiKeyFile, "api-key-file", "", "read the API key from `FILE` (the process list does not show it)")
	fs.BoolVar(&o.jsonOut, "json", false, "write the report as JSON")
	fs.BoolVar(&o.write, "write", false, "also write on the contact of --phone-number-id and --phone-number (see above: it stays behind)")
	fs.StringVar(&o.phoneNumberID, "phone-number-id", "", "with --write: the `ID` (provider_identifier) of one of your chatapp numbers")
	fs.StringVar(&o.phoneNumber, "phone-number", "", "with --write: a test `PHONE` number you own (country code and digits)")
	fs.BoolVar(&o.anomalies, "anomalies", false, "run the full anomaly checks (about a dozen reports): for the fake, not the service")
	fs.BoolVar(&o.spendRateLimit, "spend-rate-limit", false, "FOR FAKES ONLY: send requests without pacing until a 429, to check that the three key forms count alike toward the limit; against the service it spends your account's shared request limit, and every client of the account is refused until it refills")
	fs.IntVar(&o.maxRequests, "max-requests", conformance.DefaultMaxRequests, "the request budget, `N`")
	fs.DurationVar(&o.pace, "pace", conformance.DefaultPace, "the least `DURATION` between two requests (0: no pacing, for a fake on this machine)")
	fs.DurationVar(&o.timeout, "timeout", conformance.DefaultTimeout, "the most `DURATION` the whole run takes")
	fs.BoolVar(&o.insecure, "insecure-http", false, "allow a plain http:// base URL beyond loopback (sends the key in the clear)")
	fs.StringVar(&o.replay, "replay", "", "replay the recording `FILE` against --base-url instead of checking")
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	if o.apiKeyFile != "" {
		b, err := os.ReadFile(o.apiKeyFile)
		if err != nil {
			return nil, fmt.Errorf("--api-key-file: %w", err)
		}
		o.apiKey = strings.TrimSpace(string(b))
	}
	if o.apiKey == "" {
		o.apiKey = os.Getenv("CONVO_API_KEY")
	}
	switch {
	case o.baseURL == "":
		return nil, errors.New("--base-url is required (or $CONVO_BASE_URL)")
	case o.apiKey == "":
		return nil, errors.New("an API key is required: --api-key, --api-key-file or $CONVO_API_KEY")
	case o.write && (o.phoneNumberID == "" || o.phoneNumber == ""):
		return nil, errors.New("--write needs --phone-number-id and --phone-number")
	case !o.write && (o.phoneNumberID != "" || o.phoneNumber != ""):
		return nil, errors.New("--phone-number-id and --phone-number are for --write")
	case o.replay != "" && (o.write || o.anomalies || o.spendRateLimit):
		return nil, errors.New("--replay sends the recording's requests only; --write, --anomalies and --spend-rate-limit do not apply")
	}
	return o, nil
}

// run is the command; it returns the exit code.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 {
		switch args[0] {
		case "record":
			return runRecord(ctx, args[1:], stdout, stderr, nil)
		case "seed":
			return runSeed(args[1:], stdout, stderr)
		case "version", "--version", "-version":
			fmt.Fprintln(stdout, versionLine())
			return 0
		}
	}
	o, err := parse(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintln(stderr, "convocheck:", err)
		return 2
	}
	if o.replay != "" {
		return runReplay(ctx, o, stdout, stderr)
	}
	cfg := conformance.Config{
		BaseURL: o.baseURL, APIKey: o.apiKey, Anomalies: o.anomalies,
		MaxRequests: o.maxRequests, Pace: o.pace, Timeout: o.timeout, AllowInsecureHTTP: o.insecure,
	}
	if o.pace == 0 {
		cfg.Pace = -1
	}
	if o.write {
		cfg.Write = &conformance.WriteTargets{PhoneNumberID: o.phoneNumberID, PhoneNumber: o.phoneNumber}
	}
	cfg.SpendRateLimit = o.spendRateLimit
	if adminURL, token := os.Getenv("CONVOFAKE_ADMIN_URL"), os.Getenv("CONVOFAKE_ADMIN_TOKEN"); o.write && adminURL != "" && token != "" {
		if cfg.CustomFields, err = conformance.ConvofakeCustomFields(adminURL, token, nil); err != nil {
			fmt.Fprintln(stderr, "convocheck: $CONVOFAKE_ADMIN_URL and $CONVOFAKE_ADMIN_TOKEN (to read custom fields back):", err)
			return 2
		}
	}
	rep, err := conformance.Run(ctx, cfg)
	if rep != nil {
		writeReport(stdout, rep, o.jsonOut)
	}
	if err != nil {
		fmt.Fprintln(stderr, "convocheck:", err)
		return 2
	}
	return rep.ExitCode()
}

// writtenReport is a report of the suite or of a replay.
type writtenReport interface {
	WriteJSON(io.Writer) error
	WriteText(io.Writer) error
}

// writeReport prints r as JSON or as text; a failed write to stdout has
// nowhere else to be reported.
func writeReport(w io.Writer, r writtenReport, asJSON bool) {
	if asJSON {
		_ = r.WriteJSON(w)
		return
	}
	_ = r.WriteText(w)
}
