package main

import (
	"bytes"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"reflect"
	"strings"

	"github.com/convoapi/convo-go/fake"
	"github.com/convoapi/convo-go/internal/strictjson"
)

// maxAdminBody bounds the body of an admin request but the two that take a
// seed document (POST /_fake/seed and POST /_fake/companies), which
// --max-seed-size bounds: the others are small JSON objects.
const maxAdminBody = 1 << 20

// admin is the admin HTTP API under /_fake/: everything a Go test does with
// a *fake.Server, over HTTP, guarded by a bearer token.
type admin struct {
	srv       *fake.Server
	tokenHash [sha256.Size]byte
	logger    *slog.Logger
	mux       *http.ServeMux
	ui        http.Handler
	// checkHost, hosts and anyIP: when checkHost, only requests whose
	// Host is a loopback address or one of hosts are answered (hostAllowed).
	checkHost bool
	hosts     []string
	anyIP     bool
	// state is the --state file POST /_fake/save writes; nil without it.
	state *stateFile
	// seedLimit bounds a seed document's body (--max-seed-size).
	seedLimit int64
	// tenants are the companies POST /_fake/companies created.
	tenants tenants
}

func newAdmin(srv *fake.Server, token string, logger *slog.Logger) *admin {
	a := &admin{srv: srv, tokenHash: sha256.Sum256([]byte(token)), logger: logger, mux: http.NewServeMux(), ui: uiHandler(),
		seedLimit: defaultMaxSeedSize}
	handle := func(pattern string, h func(w http.ResponseWriter, r *http.Request) error) {
		a.mux.HandleFunc(pattern, func(w http.ResponseWriter, r *http.Request) {
			if err := h(w, r); err != nil {
				writeAdminError(w, err)
			}
		})
	}
	handle("GET /_fake", a.info)
	handle("GET /_fake/{$}", a.info)
	handle("POST /_fake/reset", a.reset)
	handle("POST /_fake/seed", a.seed)
	handle("GET /_fake/clock", a.getClock)
	handle("POST /_fake/clock", a.setClock)
	handle("GET /_fake/faults", a.listFaults)
	handle("POST /_fake/faults", a.addFault)
	handle("DELETE /_fake/faults", a.clearFaults)
	handle("DELETE /_fake/faults/{id}", a.removeFault)
	handle("GET /_fake/requests", a.requests)
	handle("DELETE /_fake/requests", a.clearRequests)
	handle("GET /_fake/companies", a.companies)
	handle("POST /_fake/companies", a.createCompany)
	handle("GET /_fake/state/contacts", a.contacts)
	handle("GET /_fake/state/contacts/{id}", a.contact)
	handle("GET /_fake/state/channels", a.channels)
	handle("GET /_fake/state/conversations", a.inbox)
	handle("GET /_fake/state/conversations/{id}", a.conversation)
	handle("GET /_fake/state/conversations/{id}/messages", a.thread)
	handle("GET /_fake/state/messages/{id}", a.message)
	handle("GET /_fake/state/media/{id}", a.media)
	handle("GET /_fake/state/seed", a.exportSeed)
	handle("GET /_fake/seed", a.exportSeed)
	handle("POST /_fake/save", a.saveState)
	return a
}

// adminError is an error answer of the admin API:
// {"error": "<code>", "message": "<text>"}.
type adminError struct {
	status  int
	Code    string `json:"error"`
	Message string `json:"message"`
}

func (e *adminError) Error() string { return e.Code + ": " + e.Message }

func errorf(status int, code, format string, args ...any) *adminError {
	return &adminError{status: status, Code: code, Message: fmt.Sprintf(format, args...)}
}

func badRequest(format string, args ...any) *adminError {
	return errorf(http.StatusBadRequest, "invalid_request", format, args...)
}

func writeAdminError(w http.ResponseWriter, err error) {
	var ae *adminError
	if !errors.As(err, &ae) {
		ae = errorf(http.StatusInternalServerError, "internal_error", "%v", err)
	}
	writeJSON(w, ae.status, ae)
}

// writeJSON writes an admin answer, indented for a person reading it.
func writeJSON(w http.ResponseWriter, status int, v any) { writeEncoded(w, status, v, true) }

// writeEncoded writes an admin answer, indented or compact (a seed
// document, which may be large).
func writeEncoded(w http.ResponseWriter, status int, v any, indent bool) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if indent {
		enc.SetIndent("", "  ")
	}
	if err := enc.Encode(v); err != nil {
		status = http.StatusInternalServerError
		buf.Reset()
		buf.WriteString(`{"error":"internal_error","message":"cannot encode the answer"}` + "\n")
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes())
}

// ServeHTTP checks the Host header (against DNS rebinding), serves the
// page's files (they hold no data), then checks the admin token before
// routing, so that the admin routes are not even revealed without it.
// Unknown routes and methods answer in the admin error shape.
func (a *admin) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if a.checkHost && !hostAllowed(r.Host, a.hosts, a.anyIP) {
		writeAdminError(w, errorf(http.StatusForbidden, "host_not_allowed",
			"the Host header %q names neither a loopback address nor this server's address: open the admin API at the address convofake printed", r.Host))
		return
	}
	if r.URL.Path == "/_fake/ui" {
		http.Redirect(w, r, uiPrefix, http.StatusMovedPermanently)
		return
	}
	if strings.HasPrefix(r.URL.Path, uiPrefix) {
		a.ui.ServeHTTP(w, r)
		return
	}
	if !a.authorized(r) {
		w.Header().Set("WWW-Authenticate", `Bearer realm="convofake admin"`)
		writeAdminError(w, errorf(http.StatusUnauthorized, "unauthorized",
			"missing or wrong admin token: send Authorization: Bearer <admin token> (printed at start as CONVOFAKE_ADMIN_TOKEN)"))
		return
	}
	limit := int64(maxAdminBody)
	if takesSeed(r) {
		limit = a.seedLimit
	}
	r.Body = http.MaxBytesReader(w, r.Body, limit)
	if _, pattern := a.mux.Handler(r); pattern == "" {
		var allowed []string
		for _, m := range []string{http.MethodGet, http.MethodPost, http.MethodDelete} {
			r2 := r.Clone(r.Context())
			r2.Method = m
			if _, p := a.mux.Handler(r2); p != "" {
				allowed = append(allowed, m)
			}
		}
		if len(allowed) > 0 {
			w.Header().Set("Allow", strings.Join(allowed, ", "))
			writeAdminError(w, errorf(http.StatusMethodNotAllowed, "method_not_allowed", "%s is not allowed on %s (allowed: %s)", r.Method, r.URL.Path, strings.Join(allowed, ", ")))
			return
		}
		writeAdminError(w, errorf(http.StatusNotFound, "not_found", "no admin endpoint %s %s; GET /_fake/ lists them", r.Method, r.URL.Path))
		return
	}
	a.mux.ServeHTTP(w, r)
}

// authorized compares the bearer token with the admin token in constant time
// (over SHA-256 digests, so that the length does not leak either).
func (a *admin) authorized(r *http.Request) bool {
	scheme, token, ok := strings.Cut(r.Header.Get("Authorization"), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return false
	}
	got := sha256.Sum256([]byte(strings.TrimSpace(token)))
	return subtle.ConstantTimeCompare(got[:], a.tokenHash[:]) == 1
}

// decodeBody decodes a JSON object body strictly into v, as the fake reads
// the API's bodies and seed documents (internal/strictjson): a key given
// twice, or in another case than its field's, is refused naming it, and so
// is an unknown field. An empty body is allowed when optional is true (v
// keeps its zero value).
func decodeBody(r *http.Request, v any, optional bool) error {
	data, err := io.ReadAll(r.Body)
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return tooLarge(r, mbe.Limit)
		}
		return badRequest("cannot read the body: %v", err)
	}
	if len(bytes.TrimSpace(data)) == 0 {
		if optional {
			return nil
		}
		return badRequest("a JSON object body is required")
	}
	err = strictjson.Unmarshal(data, v)
	var rule *strictjson.Error
	switch {
	case err == nil:
		return nil
	case errors.As(err, &rule):
		return badRequest("the body is not the expected JSON object: %v", err)
	case errors.Is(err, strictjson.ErrMoreThanOneValue):
		return badRequest("the body holds more than one JSON value")
	}
	return badRequest("the body is not the expected JSON object: %s", describeJSONError(err))
}

// takesSeed reports whether r is one of the two requests whose body is a
// seed document, bounded by --max-seed-size.
func takesSeed(r *http.Request) bool {
	return r.Method == http.MethodPost && (r.URL.Path == "/_fake/seed" || r.URL.Path == "/_fake/companies")
}

// tooLarge is the 413 of a body over limit, naming the flag that sets the
// limit of a seed document.
func tooLarge(r *http.Request, limit int64) *adminError {
	if !takesSeed(r) {
		return errorf(http.StatusRequestEntityTooLarge, "body_too_large", "the body is larger than %d bytes, the limit of this endpoint", limit)
	}
	return errorf(http.StatusRequestEntityTooLarge, "body_too_large",
		"the body is larger than %d bytes (--max-seed-size; restart convofake with a larger one to send it)", limit)
}

// patternHelp explains the path patterns of fault rules and journal
// filters.
const patternHelp = "* matches any run of characters but /, ? one character, [a-z] one character of a class, \\ escapes"

// describeJSONError says what is wrong with a JSON body in JSON's terms
// (object, string, number), not in those of the Go types it decodes into.
func describeJSONError(err error) string {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn):
		return fmt.Sprintf("not valid JSON at byte %d (%s)", syn.Offset, strings.TrimPrefix(syn.Error(), "json: "))
	case errors.As(err, &typ):
		if typ.Field == "" {
			return fmt.Sprintf("want a JSON %s, got a JSON %s", jsonKind(typ.Type), typ.Value)
		}
		return fmt.Sprintf("%s: want a JSON %s, got a JSON %s", typ.Field, jsonKind(typ.Type), typ.Value)
	case errors.Is(err, io.ErrUnexpectedEOF):
		return "the JSON ends too early"
	}
	msg := strings.TrimPrefix(err.Error(), "json: ")
	if name, ok := strings.CutPrefix(msg, "unknown field "); ok {
		return "unknown field " + name + "; GET /_fake/ lists the endpoints, cmd/convofake/README.md their fields"
	}
	return msg
}

// jsonKind names the JSON type a Go type decodes from.
func jsonKind(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Bool:
		return "boolean"
	case reflect.String:
		return "string"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Float32, reflect.Float64:
		return "number"
	case reflect.Slice, reflect.Array:
		return "array"
	case reflect.Pointer:
		return jsonKind(t.Elem())
	}
	return "object"
}
