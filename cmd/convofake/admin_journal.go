package main

import (
	"encoding/json"
	"net/http"
	"path"
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
	Company string              `json:"company_id"`
}

type requestsJSON struct {
	Count int           `json:"count"`
	Items []requestJSON `json:"items"`
}

// requests: GET /_fake/requests[?method=GET&path=/conversations/*]: the
// journal, oldest first, filtered as fake.Server.RequestsMatching filters
// it (path relative to the base URL; a leading /v1 or /api/v1 in the
// pattern means the same as without it). The fake has redacted the API
// keys; key-like query parameters, headers and JSON body fields are
// redacted here. body is the request body as JSON when it is JSON, else as
// a string, else null.
func (a *admin) requests(w http.ResponseWriter, r *http.Request) error {
	pattern := r.URL.Query().Get("path")
	if _, err := path.Match(pattern, "/"); err != nil {
		return badRequest("path: %q is not a valid pattern: %s", pattern, patternHelp)
	}
	companyID, err := a.requestsCompany(r)
	if err != nil {
		return err
	}
	out := requestsJSON{Items: []requestJSON{}}
	for _, req := range a.srv.RequestsMatching(r.URL.Query().Get("method"), pattern) {
		if companyID != "" && req.CompanyID != companyID {
			continue
		}
		out.Items = append(out.Items, requestJSON{
			Time: formatTime(req.Time), Method: req.Method, Prefix: req.Prefix, Path: req.Path,
			Query: redactValues(req.Query), Headers: redactValues(req.Header),
			Body: bodyJSON(req.Body), Status: req.Status, Company: req.CompanyID,
		})
	}
	out.Count = len(out.Items)
	writeJSON(w, http.StatusOK, out)
	return nil
}

// clearRequests: DELETE /_fake/requests[?company=]: empties the journal,
// or removes one company's requests from it.
func (a *admin) clearRequests(w http.ResponseWriter, r *http.Request) error {
	if r.URL.Query().Has("company") {
		co, err := a.company(r)
		if err != nil {
			return err
		}
		co.ClearRequests()
	} else {
		a.srv.ClearRequests()
	}
	writeJSON(w, http.StatusOK, struct {
		OK bool `json:"ok"`
	}{true})
	return nil
}
