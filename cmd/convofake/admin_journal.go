package main

import (
	"bytes"
	"encoding/json"
	"net/http"
	"path"
	"strings"
	"unicode/utf8"

	"github.com/convoapi/convo-go/fake"
)

type requestJSON struct {
	Time    string              `json:"time"`
	Method  string              `json:"method"`
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

// requests: GET /_fake/requests[?method=GET&path=/v1/conversations/*]: the
// journal, oldest first. path is a path.Match pattern over the path as sent.
// API keys are redacted ("Bearer [REDACTED]"). body is the request body as
// JSON when it is JSON, else as a string, else null.
func (a *admin) requests(w http.ResponseWriter, r *http.Request) error {
	method := strings.ToUpper(r.URL.Query().Get("method"))
	pattern := r.URL.Query().Get("path")
	if pattern != "" {
		if _, err := path.Match(pattern, "/"); err != nil {
			return badRequest("path: %q is not a path.Match pattern: %v", pattern, err)
		}
	}
	var secrets []string
	for _, co := range a.srv.Companies() {
		secrets = append(secrets, co.APIKey())
	}
	out := requestsJSON{Items: []requestJSON{}}
	for _, req := range a.srv.Requests() {
		if method != "" && req.Method != method {
			continue
		}
		if pattern != "" {
			if ok, _ := path.Match(pattern, req.Path); !ok {
				continue
			}
		}
		out.Items = append(out.Items, requestJSON{
			Time: formatTime(req.Time), Method: req.Method, Path: req.Path,
			Query: redactValues(req.Query, secrets), Headers: redactValues(req.Header, secrets),
			Body: bodyJSON(req.Body), Status: req.Status,
		})
	}
	out.Count = len(out.Items)
	writeJSON(w, http.StatusOK, out)
	return nil
}

// redactValues copies m, replacing (defensively: the fake already redacts
// the key headers) any value that contains a known secret.
func redactValues(m map[string][]string, secrets []string) map[string][]string {
	out := make(map[string][]string, len(m))
	for k, vs := range m {
		cp := make([]string, len(vs))
		for i, v := range vs {
			cp[i] = v
			for _, s := range secrets {
				if s != "" && strings.Contains(v, s) {
					cp[i] = strings.ReplaceAll(v, s, fake.Redacted)
				}
			}
		}
		out[k] = cp
	}
	return out
}

func bodyJSON(b []byte) json.RawMessage {
	switch {
	case len(bytes.TrimSpace(b)) == 0:
		return json.RawMessage("null")
	case json.Valid(b):
		var buf bytes.Buffer
		if json.Compact(&buf, b) == nil {
			return buf.Bytes()
		}
	}
	s := string(b)
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	enc, _ := json.Marshal(s)
	return enc
}

func (a *admin) clearRequests(w http.ResponseWriter, _ *http.Request) error {
	a.srv.ClearRequests()
	writeJSON(w, http.StatusOK, struct {
		OK bool `json:"ok"`
	}{true})
	return nil
}
