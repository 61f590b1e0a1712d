package conformance

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"time"
)

// stampRE is a timestamp as the fake writes them, and as the service's
// envelope is specified (UTC, millisecond precision): RFC 3339, exactly
// three fractional digits, Z.
var stampRE = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$`)

// uuidRE is a UUID in its canonical text form.
var uuidRE = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)

// errorIDRE is the spec's form of an errorId: ERR-<part>-<part>.
var errorIDRE = regexp.MustCompile(`^ERR-[0-9A-Za-z]+-[0-9A-Za-z]+$`)

// fields checks the fields of one JSON object and reports each problem on
// its check, naming the place ("data.items[2].status").
type fields struct {
	c     *check
	ex    *exchange
	where string
	m     map[string]any
}

// obj starts checking v, which must be an object, at where.
func obj(c *check, ex *exchange, where string, v any) (fields, bool) {
	m, ok := v.(map[string]any)
	if !ok {
		c.failf(ex, "%s: want an object, got %s", where, kind(v))
	}
	return fields{c: c, ex: ex, where: where, m: m}, ok
}

// kind names the JSON kind of v.
func kind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return "a string"
	case json.Number, float64:
		return "a number"
	case bool:
		return "a boolean"
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("%T", v)
}

func (f fields) at(key string) string { return f.where + "." + key }

// get returns the value of key; a missing key is a failure.
func (f fields) get(key string) (any, bool) {
	v, ok := f.m[key]
	if !ok {
		f.c.failf(f.ex, "%s is missing", f.at(key))
	}
	return v, ok
}

// isNull reports whether key holds null; a null where null is not allowed
// is a failure.
func (f fields) isNull(key string, v any, null bool) bool {
	if v != nil {
		return false
	}
	if !null {
		f.c.failf(f.ex, "%s is null", f.at(key))
	}
	return true
}

// str checks a string field (null allowed when null is true; one of allowed
// when any are given) and returns it ("" and false for null or a failure).
func (f fields) str(key string, null bool, allowed ...string) (string, bool) {
	v, ok := f.get(key)
	if !ok || f.isNull(key, v, null) {
		return "", false
	}
	s, ok := v.(string)
	if !ok {
		f.c.failf(f.ex, "%s: want a string, got %s", f.at(key), kind(v))
		return "", false
	}
	if len(allowed) > 0 && !slices.Contains(allowed, s) {
		f.c.failf(f.ex, "%s: %q is not one of %q", f.at(key), s, allowed)
	}
	return s, true
}

// uuid checks a string field holding a UUID.
func (f fields) uuid(key string) (string, bool) {
	s, ok := f.str(key, false)
	if ok && !uuidRE.MatchString(s) {
		f.c.failf(f.ex, "%s: %q is not a UUID", f.at(key), s)
	}
	return s, ok
}

// integer checks an integer field.
func (f fields) integer(key string, null bool) (int64, bool) {
	v, ok := f.get(key)
	if !ok || f.isNull(key, v, null) {
		return 0, false
	}
	n, ok := v.(json.Number)
	if !ok {
		f.c.failf(f.ex, "%s: want an integer, got %s", f.at(key), kind(v))
		return 0, false
	}
	i, err := n.Int64()
	if err != nil {
		f.c.failf(f.ex, "%s: want an integer, got %s", f.at(key), n)
		return 0, false
	}
	return i, true
}

// number checks a number field.
func (f fields) number(key string) (float64, bool) {
	v, ok := f.get(key)
	if !ok || f.isNull(key, v, false) {
		return 0, false
	}
	n, ok := v.(json.Number)
	if !ok {
		f.c.failf(f.ex, "%s: want a number, got %s", f.at(key), kind(v))
		return 0, false
	}
	x, err := n.Float64()
	return x, err == nil
}

// boolean checks a boolean field.
func (f fields) boolean(key string) (bool, bool) {
	v, ok := f.get(key)
	if !ok || f.isNull(key, v, false) {
		return false, false
	}
	b, ok := v.(bool)
	if !ok {
		f.c.failf(f.ex, "%s: want a boolean, got %s", f.at(key), kind(v))
	}
	return b, ok
}

// stamp checks a date-time field written as the service writes them.
func (f fields) stamp(key string, null bool) (time.Time, bool) {
	s, ok := f.str(key, null)
	if !ok {
		return time.Time{}, false
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		f.c.failf(f.ex, "%s: %q is not an RFC 3339 date-time", f.at(key), s)
		return time.Time{}, false
	}
	// The exact layout (UTC, three fractional digits, Z) is a decision: the
	// check format/timestamps reports it, not every check that reads a time.
	f.c.stamps.note(f.c.id, f.at(key), s, stampRE.MatchString(s))
	return t, true
}

// object checks an object field.
func (f fields) object(key string, null bool) (fields, bool) {
	v, ok := f.get(key)
	if !ok || f.isNull(key, v, null) {
		return fields{}, false
	}
	return obj(f.c, f.ex, f.at(key), v)
}

// array checks an array field.
func (f fields) array(key string) ([]any, bool) {
	v, ok := f.get(key)
	if !ok || f.isNull(key, v, false) {
		return nil, false
	}
	a, ok := v.([]any)
	if !ok {
		f.c.failf(f.ex, "%s: want an array, got %s", f.at(key), kind(v))
	}
	return a, ok
}

// absent checks that key is not there.
func (f fields) absent(key, why string) {
	if _, ok := f.m[key]; ok {
		f.c.failf(f.ex, "%s is present: %s", f.at(key), why)
	}
}

// item is element i of an array, as an object.
func (f fields) item(key string, i int, v any) (fields, bool) {
	return obj(f.c, f.ex, fmt.Sprintf("%s[%d]", f.at(key), i), v)
}

// envelope checks a success envelope: status 2xx, success true, data an
// object, timestamp a service time. It returns the data.
func envelope(c *check, ex *exchange, status int) (fields, bool) {
	if ex.status != status {
		c.failf(ex, "status %d, want %d", ex.status, status)
		return fields{}, false
	}
	top, ok := obj(c, ex, "body", ex.json)
	if !ok {
		return fields{}, false
	}
	if s, ok := top.boolean("success"); ok && !s {
		c.failf(ex, "body.success is false on a %d answer", ex.status)
	}
	top.stamp("timestamp", false)
	return top.object("data", false)
}

// stamps returns the envelope's timestamp (zero when it has none).
func envelopeTime(ex *exchange) time.Time {
	m, _ := ex.json.(map[string]any)
	s, _ := m["timestamp"].(string)
	t, _ := time.Parse(time.RFC3339Nano, s)
	return t
}

// errorAnswer checks an error answer: the status, the error envelope of
// the spec (success false, statusCode equal to the status, timestamp, the
// internal /api/v1 path of the request, its method, message as an object
// with error and message, details an object when present, errorId of the
// form ERR-x-y), and the code when code is not "". It returns the message
// object.
func errorAnswer(c *check, ex *exchange, status int, code string) (fields, bool) {
	if ex.status != status {
		c.failf(ex, "status %d, want %d %s", ex.status, status, code)
		return fields{}, false
	}
	top, ok := obj(c, ex, "error body", ex.json)
	if !ok {
		return fields{}, false
	}
	if s, ok := top.boolean("success"); ok && s {
		c.failf(ex, "error body.success is true")
	}
	if n, ok := top.integer("statusCode", false); ok && int(n) != ex.status {
		c.failf(ex, "error body.statusCode %d differs from the HTTP status %d", n, ex.status)
	}
	top.stamp("timestamp", false)
	if p, ok := top.str("path", false); ok {
		if want := internalPath(ex.rel); ex.rel != "" && p != want {
			c.failf(ex, "error body.path is %q, want the internal form of the request's path %q", p, want)
		}
	}
	top.str("method", false, ex.method)
	if id, ok := top.str("errorId", false); ok && !errorIDRE.MatchString(id) {
		c.failf(ex, "error body.errorId %q is not of the form ERR-<part>-<part>", id)
	}
	msg, ok := top.object("message", false)
	if !ok {
		return fields{}, false
	}
	if got, ok := msg.str("error", false); ok && code != "" && got != code {
		c.failf(ex, "error code %s, want %s", got, code)
	}
	msg.str("message", false)
	if _, ok := msg.m["details"]; ok {
		msg.object("details", false)
	}
	return msg, true
}

// internalPath is the path an error body shows for a request path relative
// to the base URL: under /api/v1, the internal form of /v1.
func internalPath(rel string) string { return "/api/v1" + rel }
