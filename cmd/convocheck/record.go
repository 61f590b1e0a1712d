package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/convoapi/convo-go"
	"github.com/convoapi/convo-go/conformance"
	"github.com/convoapi/convo-go/internal/netx"
)

const recordUsage = `Usage: convocheck record --upstream URL --out FILE [--listen 127.0.0.1:PORT] [--pseudonymise]

A recording proxy: point any client, in any language, at the address it
prints (CONVO_BASE_URL, ending in /v1) instead of the service's. It forwards
each request to --upstream with the key the client sent, and records each
exchange in FILE (JSON lines, the format of conformance.Recorder): the
request's method, path, query and body, the answer's status, the headers
that matter and its body, a file by its size and SHA-256. The key the
client sends is removed from the recording in every escaping and written
nowhere; it listens on loopback unless --listen says otherwise.

Temporary file addresses: in an attachment answer, the address of the file
is replaced by one on the proxy (…/_convocheck/files/N), so that the
client's download passes through the proxy and is recorded; the recording
keeps the service's address (without its query), or a stand-in with
--pseudonymise. The proxy remembers the last %d addresses.

An answer longer than --max-body is passed on whole but recorded by its
status only. Stop it with SIGINT (Ctrl-C) or SIGTERM: it waits up to
--shutdown-grace for the exchanges under way, then closes FILE, complete.

Then: convocheck seed FILE > seed.json; convofake --seed seed.json;
convocheck --replay FILE --base-url "$CONVO_BASE_URL" --api-key "$CONVO_API_KEY".

Flags:
`

// maxFileAddresses is how many temporary file addresses the proxy keeps.
const maxFileAddresses = 10000

// recordOptions are the flags of convocheck record.
type recordOptions struct {
	upstream, out, listen string
	pseudonymise          bool
	salt                  string
	maxBody               int64
	insecure              bool
	grace                 time.Duration
}

func parseRecord(args []string, stderr io.Writer) (*recordOptions, error) {
	o := &recordOptions{}
	fs := flag.NewFlagSet("convocheck record", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, recordUsage, maxFileAddresses)
		fs.PrintDefaults()
	}
	fs.StringVar(&o.upstream, "upstream", "", "the service's base `URL`, ending in /v1")
	fs.StringVar(&o.out, "out", "", "the recording `FILE` to write (replaced when it exists)")
	fs.StringVar(&o.listen, "listen", "127.0.0.1:8081", "`HOST:PORT` to listen on (port 0: any free port, printed)")
	fs.BoolVar(&o.pseudonymise, "pseudonymise", false, "replace phones, names, e-mails, filenames, tags, texts and file addresses by stand-ins (for a recording you share)")
	fs.StringVar(&o.salt, "salt", "", "with --pseudonymise: a `SECRET` that makes the stand-ins unlike another recording's (default: a fixed salt, guessable)")
	fs.Int64Var(&o.maxBody, "max-body", convo.DefaultMaxResponseBytes, "the most `BYTES` of one answer recorded; a longer answer is passed on and recorded by its status")
	fs.BoolVar(&o.insecure, "insecure-http", false, "allow a plain http:// upstream beyond loopback (sends the key in the clear)")
	fs.DurationVar(&o.grace, "shutdown-grace", 10*time.Second, "how long a stop waits for the exchanges under way, a `DURATION`")
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	switch {
	case o.upstream == "":
		return nil, errors.New("--upstream is required: the service's base URL, ending in /v1")
	case o.out == "":
		return nil, errors.New("--out is required: the recording file")
	case o.maxBody <= 0:
		return nil, errors.New("--max-body must be positive")
	}
	u, err := url.Parse(o.upstream)
	switch {
	case err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") || u.RawQuery != "":
		return nil, fmt.Errorf("--upstream %q is not an absolute http(s) URL without a query", o.upstream)
	case !strings.HasSuffix(strings.TrimSuffix(u.Path, "/"), "/v1"):
		return nil, fmt.Errorf("--upstream %q does not end with /v1", o.upstream)
	case u.Scheme == "http" && !netx.IsLoopback(u.Hostname()) && !o.insecure:
		return nil, fmt.Errorf("--upstream uses plain http on %s, which would send the clients' key in the clear; use https (or --insecure-http)", u.Host)
	}
	o.upstream = strings.TrimSuffix(o.upstream, "/")
	return o, nil
}

// runRecord is convocheck record; ready, when not nil, gets the address
// listened on.
func runRecord(ctx context.Context, args []string, stdout, stderr io.Writer, ready func(addr string)) int {
	o, err := parseRecord(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintln(stderr, "convocheck record:", err)
		return 2
	}
	ln, err := net.Listen("tcp", o.listen)
	if err != nil {
		fmt.Fprintln(stderr, "convocheck record:", err)
		return 2
	}
	f, err := os.OpenFile(o.out, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o600)
	if err != nil {
		ln.Close()
		fmt.Fprintln(stderr, "convocheck record:", err)
		return 2
	}
	rec := conformance.NewRecorder(f, conformance.RecorderOptions{Pseudonymise: o.pseudonymise, Salt: o.salt, MaxBodyBytes: o.maxBody})
	p := newRecordingProxy(o.upstream, rec)
	srv := &http.Server{Handler: p, ReadHeaderTimeout: 30 * time.Second}
	addr := ln.Addr().String()
	fmt.Fprintf(stdout, "# convocheck record: recording to %s; point clients at:\nCONVO_BASE_URL=http://%s/v1\n", o.out, addr)
	fmt.Fprintf(stdout, "# upstream: %s (each client's own key is forwarded, and written nowhere)\n# stop with Ctrl-C or SIGTERM: the recording is then complete\n", o.upstream)
	if ready != nil {
		ready(addr)
	}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	code := 0
	select {
	case <-ctx.Done():
		sctx, cancel := context.WithTimeout(context.Background(), o.grace)
		if err := srv.Shutdown(sctx); err != nil {
			fmt.Fprintln(stderr, "convocheck record: exchanges still under way were cut:", err)
			code = 1
		}
		cancel()
	case err := <-served:
		fmt.Fprintln(stderr, "convocheck record:", err)
		code = 1
	}
	if err := rec.Err(); err != nil {
		fmt.Fprintln(stderr, "convocheck record: writing the recording:", err)
		code = 1
	}
	if err := f.Close(); err != nil {
		fmt.Fprintln(stderr, "convocheck record:", err)
		code = 1
	}
	fmt.Fprintf(stderr, "convocheck record: %d exchanges recorded in %s\n", p.exchanges(), o.out)
	return code
}
