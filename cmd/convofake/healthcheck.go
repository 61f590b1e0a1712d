package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"time"
)

// healthcheckTimeout bounds one health check.
const healthcheckTimeout = 3 * time.Second

// healthcheck is `convofake healthcheck [--addr HOST:PORT]`: it asks GET /
// of a running convofake (no key needed) and exits 0 when it answers 200
// with success true, 1 otherwise. The container image has no shell and no
// curl: its HEALTHCHECK runs this.
func healthcheck(ctx context.Context, args []string, stderr io.Writer) int {
	fs := flag.NewFlagSet("convofake healthcheck", flag.ContinueOnError)
	fs.SetOutput(stderr)
	addr := fs.String("addr", "127.0.0.1:8080", "the `HOST:PORT` of the convofake to check")
	if err := fs.Parse(args); err != nil {
		return exitNoStart
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "convofake healthcheck: unexpected argument %q\n", fs.Arg(0))
		return exitNoStart
	}
	ctx, cancel := context.WithTimeout(ctx, healthcheckTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+*addr+"/", nil)
	if err != nil {
		fmt.Fprintln(stderr, "convofake healthcheck:", err)
		return exitNoStart
	}
	resp, err := (&http.Client{}).Do(req)
	if err != nil {
		fmt.Fprintln(stderr, "convofake healthcheck:", err)
		return exitFailure
	}
	defer resp.Body.Close()
	var root struct {
		Success bool `json:"success"`
	}
	if resp.StatusCode != http.StatusOK || json.NewDecoder(io.LimitReader(resp.Body, 1<<16)).Decode(&root) != nil || !root.Success {
		fmt.Fprintf(stderr, "convofake healthcheck: GET http://%s/ answered %d, not convofake's 200\n", *addr, resp.StatusCode)
		return exitFailure
	}
	return exitOK
}
