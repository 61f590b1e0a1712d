package main

import (
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/convoapi/convo-go/internal/statuswriter"
)

// keyRedactor replaces API keys in a text (*fake.Server).
type keyRedactor interface{ RedactKeys(string) string }

// logRequests logs one line per request: method, path, status and duration.
// It never logs headers (API key, admin token), query strings (phone
// numbers) or bodies, hides the token of temporary attachment URLs, and
// redacts any company's key in the path (a key sent as an id).
func logRequests(logger *slog.Logger, keys keyRedactor, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		rec := &statuswriter.Writer{ResponseWriter: w}
		defer func() {
			ctx := r.Context()
			if !logger.Enabled(ctx, slog.LevelInfo) {
				return
			}
			// The record is made here rather than by LogAttrs, which would
			// also look up the caller's program counter on every request:
			// the line names no source (convofake's handlers log none).
			end := time.Now()
			line := slog.NewRecord(end, slog.LevelInfo, "request", 0)
			// Status 0: the connection was dropped (a drop fault) or the
			// client went away before any answer.
			line.AddAttrs(
				slog.String("method", r.Method),
				slog.String("path", keys.RedactKeys(logPath(r.URL.Path))),
				slog.Int("status", rec.Status),
				slog.Duration("duration", end.Sub(start)),
			)
			_ = logger.Handler().Handle(ctx, line)
		}()
		next.ServeHTTP(rec, r)
	})
}

// logPath is the path as logged: the capability token of an attachment URL
// (/_files/<token>) is a credential and is replaced.
func logPath(p string) string {
	if strings.HasPrefix(p, "/_files/") && len(p) > len("/_files/") {
		return "/_files/[REDACTED]"
	}
	return p
}
