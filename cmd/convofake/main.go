package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"
)

// Exit codes of run.
const (
	exitOK      = 0
	exitFailure = 1 // the server stopped on an error after it started
	exitNoStart = 2 // it could not start: bad flag, bad seed file, address refused or in use
	exitCut     = 3 // stopped on a signal, but requests still running after --shutdown-grace were cut
)

// defaultAddr is where convofake listens without --addr.
const defaultAddr = "127.0.0.1:8080"

// timeLayout is the timestamp form of the API (milliseconds, UTC, "Z"),
// used by the admin API too.
const timeLayout = "2006-01-02T15:04:05.000Z"

func formatTime(t time.Time) string { return t.UTC().Format(timeLayout) }

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr, nil)
	stop()
	os.Exit(code)
}

func randomToken() string {
	b := make([]byte, 24)
	_, _ = rand.Read(b) // crypto/rand.Read never fails (Go 1.24+)
	return hex.EncodeToString(b)
}

func newLogger(format string, w io.Writer) *slog.Logger {
	if format == "json" {
		return slog.New(slog.NewJSONHandler(w, nil))
	}
	return slog.New(slog.NewTextHandler(w, nil))
}

// run is the whole program: it parses args, serves until ctx ends and
// returns the exit code. ready, when not nil, is called with the address
// (host:port) of the API's listener once the server accepts connections.
func run(ctx context.Context, args []string, stdout, stderr io.Writer, ready func(addr string)) int {
	if len(args) > 0 && args[0] == "healthcheck" {
		return healthcheck(ctx, args[1:], stderr)
	}
	cfg, err := parseFlags(args, stdout)
	if errors.Is(err, flag.ErrHelp) {
		return exitOK
	}
	if err != nil {
		fmt.Fprintf(stderr, "convofake: %v\nconvofake -h lists the flags.\n", err)
		return exitNoStart
	}
	if cfg.version {
		printVersion(stdout)
		return exitOK
	}
	logger := newLogger(cfg.logFormat, stderr)
	a, err := startApp(cfg, logger)
	if err != nil {
		fmt.Fprintf(stderr, "convofake: %v\n", err)
		return exitNoStart
	}
	defer a.closeListeners()
	if a.state != nil {
		defer a.state.lock.release() // after the save at exit
	}
	a.printWhatToUse(stdout)
	return a.serve(ctx, stderr, ready)
}

// route sends /_fake and /_fake/... to the admin API and everything else
// (/v1, /api/v1, /_files/) to the fake. An admin path with ".", ".." or
// "//" is answered 404 here, in the admin error shape, rather than
// redirected by the admin API's ServeMux: convofake never redirects.
func route(api http.Handler, admin http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/_fake" || strings.HasPrefix(r.URL.Path, "/_fake/") {
			if !isCleanPath(r.URL.Path) {
				writeAdminError(w, errorf(http.StatusNotFound, "not_found",
					"%s is not a canonical path (it has \".\", \"..\" or \"//\"); convofake does not redirect", r.URL.Path))
				return
			}
			admin.ServeHTTP(w, r)
			return
		}
		api.ServeHTTP(w, r)
	})
}
