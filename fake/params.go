package fake

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/convoapi/convo-go/internal/strictjson"
)

// parseLimit reads an integer query parameter bounded by [1, max] with a
// default (limit, threshold_hours). Only plain decimal digits are an
// integer: "abc", "5.5", "1e2", "+5", "-1", " 5" and "" are INVALID_PARAM;
// leading zeros are allowed ("05" is 5).
func parseLimit(q url.Values, name string, def, max int) (int, *apiError) {
	vs, ok := q[name]
	if !ok {
		return def, nil
	}
	v := vs[0]
	n := 0
	valid := v != ""
	for i := 0; valid && i < len(v); i++ {
		if v[i] < '0' || v[i] > '9' {
			valid = false
		}
		if n <= max { // beyond max it stays invalid; no overflow
			n = n*10 + int(v[i]-'0')
		}
	}
	if !valid || n < 1 || n > max {
		return 0, invalidParam(name + " must be an integer from 1 to " + strconv.Itoa(max))
	}
	return n, nil
}

// parseTime reads an RFC 3339 date-time query parameter. The
// instant is truncated to the millisecond, the precision of every time the
// API shows, so that a bound echoed back (window.since) is exactly the
// bound applied.
func parseTime(q url.Values, name string) (time.Time, bool, *apiError) {
	vs, ok := q[name]
	if !ok {
		return time.Time{}, false, nil
	}
	t, err := time.Parse(time.RFC3339Nano, vs[0])
	if err != nil {
		return time.Time{}, false, invalidParam(name + " must be an RFC 3339 date-time, e.g. 2026-11-22T10:04:05.123Z")
	}
	return t.Truncate(time.Millisecond), true, nil
}

// jsonBody is a decoded request body: a JSON object whose fields are read
// one by one, so that a wrong type names its field.
type jsonBody map[string]json.RawMessage

// decodeBody reads the request's JSON object body. An empty body is an empty
// object (the missing fields are then reported by name); a body that is not
// application/json, not JSON, or not an object is 400 INVALID_PARAM.
func decodeBody(r *http.Request) (jsonBody, *apiError) {
	var raw []byte
	if r.Body != nil {
		var buf bytes.Buffer
		_, _ = buf.ReadFrom(r.Body)
		raw = buf.Bytes()
	}
	if len(bytes.TrimSpace(raw)) == 0 {
		return jsonBody{}, nil
	}
	ct := r.Header.Get("Content-Type")
	mt, _, err := mime.ParseMediaType(ct)
	if err != nil || (mt != "application/json" && !strings.HasSuffix(mt, "+json")) {
		return nil, invalidParam("Content-Type must be application/json")
	}
	if e := checkJSONText(raw); e != nil {
		return nil, e
	}
	// The one strictness of every JSON the fake reads (internal/strictjson):
	// encoding/json alone would keep the last of two values silently.
	var body jsonBody
	err = strictjson.Unmarshal(raw, &body)
	if e := (*strictjson.Error)(nil); errors.As(err, &e) {
		return nil, invalidParam(e.Path + " is given more than once in the body; give it once")
	}
	if err != nil || body == nil {
		return nil, invalidParam("The request body must be a JSON object")
	}
	return body, nil
}

// checkJSONText refuses what encoding/json would silently change: bytes
// that are not UTF-8 and \u escapes of lone surrogates (both become
// U+FFFD, so two different names could collapse into one), and NUL
// characters (\u0000), which no field of the service accepts. A raw NUL or
// control byte is not JSON at all and is left to the decoder.
func checkJSONText(raw []byte) *apiError {
	if !utf8.Valid(raw) {
		return invalidParam("body is not valid UTF-8")
	}
	for i := 0; i < len(raw); i++ {
		if raw[i] != '\\' || i+1 >= len(raw) {
			continue
		}
		i++ // the escaped character; only \u needs a look
		if raw[i] != 'u' {
			continue
		}
		r, ok := hex4(raw, i+1)
		if !ok {
			continue // not JSON: the decoder reports it
		}
		i += 4
		switch {
		case r == 0:
			return invalidParam("body holds a NUL character (\\u0000) in a string; no field accepts one")
		case utf16.IsSurrogate(r) && r < 0xDC00: // a high surrogate needs a low one next
			lo, ok := rune(0), i+6 < len(raw) && raw[i+1] == '\\' && raw[i+2] == 'u'
			if ok {
				lo, ok = hex4(raw, i+3)
			}
			if !ok || lo < 0xDC00 || lo > 0xDFFF {
				return invalidParam("body holds a lone UTF-16 surrogate escape in a string")
			}
			i += 6
		case utf16.IsSurrogate(r):
			return invalidParam("body holds a lone UTF-16 surrogate escape in a string")
		}
	}
	return nil
}

// hex4 reads the four hex digits at raw[i:i+4].
func hex4(raw []byte, i int) (rune, bool) {
	if i+4 > len(raw) {
		return 0, false
	}
	n, err := strconv.ParseUint(string(raw[i:i+4]), 16, 32)
	return rune(n), err == nil
}

// str returns the string field name; present is false when absent, null or
// "". A value of another type is INVALID_PARAM.
func (b jsonBody) str(name string) (v string, present bool, e *apiError) {
	raw, ok := b[name]
	if !ok || string(raw) == "null" {
		return "", false, nil
	}
	if err := json.Unmarshal(raw, &v); err != nil {
		return "", false, invalidParam(name + " must be a string")
	}
	return v, v != "", nil
}

// required returns the string field name or MISSING_PARAM naming it.
func (b jsonBody) required(name string) (string, *apiError) {
	v, ok, e := b.str(name)
	if e != nil {
		return "", e
	}
	if !ok {
		return "", missingParam(name)
	}
	return v, nil
}

// cursor is the decoded content of a pagination cursor. Cursors are
// opaque to clients: base64url(JSON) "." base64url(HMAC-SHA256 truncated),
// keyed by a per-server secret, so a cursor the server did not issue is
// rejected with 400 INVALID_PARAM.
type cursor struct {
	Kind string `json:"k"`           // "m": messages, "c": conversations
	Conv string `json:"c,omitempty"` // messages: the conversation
	// SinceMilli is the messages window start, as the answer's
	// window.since shows it (Unix ms: any date since takes fits).
	SinceMilli int64 `json:"wm,omitempty"`
	// At and ID are the position of the last item returned (Unix ns, id).
	At int64  `json:"t"`
	ID string `json:"i"`
	// Seq is the insert sequence when the first conversations page was read.
	Seq uint64 `json:"s,omitempty"`
	// Filters are the conversations filters of the first page.
	Filters *convFilters `json:"f,omitempty"`
}

// encodeCursor is the text of c: its JSON and the start of its HMAC, each
// in base64, joined by a dot.
func (s *Server) encodeCursor(c cursor) string {
	payload, _ := json.Marshal(c)
	var sum [sha256.Size]byte
	s.cursorMAC(payload, &sum)
	enc := base64.RawURLEncoding
	b := make([]byte, 0, enc.EncodedLen(len(payload))+1+enc.EncodedLen(16))
	b = append(enc.AppendEncode(b, payload), '.')
	return string(enc.AppendEncode(b, sum[:16]))
}

// cursorMAC puts the HMAC of payload under the server's cursor key in sum.
func (s *Server) cursorMAC(payload []byte, sum *[sha256.Size]byte) {
	mac := hmac.New(sha256.New, s.cursorKey)
	mac.Write(payload)
	mac.Sum(sum[:0])
}

func (s *Server) decodeCursor(v, kind string) (cursor, *apiError) {
	bad := func() (cursor, *apiError) {
		return cursor{}, invalidParam("cursor is invalid: pass the next_cursor of the previous page unchanged")
	}
	p, sig, ok := strings.Cut(v, ".")
	if !ok {
		return bad()
	}
	payload, err1 := base64.RawURLEncoding.DecodeString(p)
	got, err2 := base64.RawURLEncoding.DecodeString(sig)
	if err1 != nil || err2 != nil {
		return bad()
	}
	var sum [sha256.Size]byte
	s.cursorMAC(payload, &sum)
	if !hmac.Equal(sum[:16], got) {
		return bad()
	}
	var c cursor
	if err := json.Unmarshal(payload, &c); err != nil || c.Kind != kind {
		return bad()
	}
	return c, nil
}
