package main

import (
	"encoding/json"
	"net/http"
	"path"
	"strings"
)

// requestJSON is one journal entry as GET /_fake/requests shows it. path is
// relative to the base URL ("/channels"), the form fault rules take; prefix
// is the version prefix the client sent ("/v1" or "/api/v1"; "" outside
// the API, e.g. /_files/...).
type requestJSON struct {
	Time    string              `json:"time"`
	Method  string              `json:"method"`
	Prefix  string              `json:"prefix"`
	Path    string              `json:"path"`
	Query   map[string][]string `json:"query"`
	Headers map[string][]string `json:"headers"`
	Body    json.RawMessage     `json:"body"`
	Status  int                 `json:"status"`
}

type requestsJSON struct {
	Count int           `json:"count"`
	Items []requestJSON `json:"items"`
}

// apiPrefixes are the version prefixes of the API's base URLs.
var apiPrefixes = []string{"/api/v1", "/v1"}

// splitPrefix splits the version prefix off a path as sent:
// "/v1/channels" is ("/v1", "/channels").
func splitPrefix(p string) (prefix, rel string) {
	for _, pre := range apiPrefixes {
		if p == pre {
			return pre, "/"
		}
		if strings.HasPrefix(p, pre+"/") {
			return pre, p[len(pre):]
		}
	}
	return "", p
}

// pathMatches matches a ?path= pattern: against the relative path
// ("/channels", "/conversations/*/messages"), or, for a pattern that starts
// with a version prefix ("/v1/*"), against the path as sent.
func pathMatches(pattern, prefix, rel string) bool {
	target := rel
	if pre, _ := splitPrefix(pattern); pre != "" {
		target = prefix + rel
	}
	ok, _ := path.Match(pattern, target)
	return ok
}

// requests: GET /_fake/requests[?method=GET&path=/conversations/*]: the
// journal, oldest first. path is a path.Match pattern over the path
// relative to the base URL (or over the whole path when the pattern starts
// with /v1 or /api/v1). API keys are redacted ("Bearer [REDACTED]"), and so
// are key-like query parameters, headers and JSON body fields. body is the
// request body as JSON when it is JSON, else as a string, else null.
func (a *admin) requests(w http.ResponseWriter, r *http.Request) error {
	method := strings.ToUpper(r.URL.Query().Get("method"))
	pattern := r.URL.Query().Get("path")
	if pattern != "" {
		if _, err := path.Match(pattern, "/"); err != nil {
			return badRequest("path: %q is not a valid pattern: %s", pattern, patternHelp)
		}
	}
	secrets := serverKeys(a.srv)
	out := requestsJSON{Items: []requestJSON{}}
	for _, req := range a.srv.Requests() {
		if method != "" && req.Method != method {
			continue
		}
		if pattern != "" && !pathMatches(pattern, req.Prefix, req.Path) {
			continue
		}
		out.Items = append(out.Items, requestJSON{
			Time: formatTime(req.Time), Method: req.Method, Prefix: req.Prefix, Path: req.Path,
			Query: redactValues(req.Query, secrets), Headers: redactValues(req.Header, secrets),
			Body: bodyJSON(req.Body, secrets), Status: req.Status,
		})
	}
	out.Count = len(out.Items)
	writeJSON(w, http.StatusOK, out)
	return nil
}

func (a *admin) clearRequests(w http.ResponseWriter, _ *http.Request) error {
	a.srv.ClearRequests()
	writeJSON(w, http.StatusOK, struct {
		OK bool `json:"ok"`
	}{true})
	return nil
}
