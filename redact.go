package convo

import (
	"encoding/json"
	"fmt"
	"html"
	"net/http"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf16"
)

// redacted replaces the API key wherever redaction finds it.
const redacted = "[REDACTED]"

// shortKeyLen is the length under which a key is redacted only as a whole
// token. A long key is replaced wherever it appears; a short one (a test key
// such as "k1") would, replaced everywhere, garble every word that happens to
// contain it — "convo: 404 NOT_FOUND" for a key "O" — so it is replaced only
// where it stands alone: not preceded or followed by a letter or a digit.
// A short key inside a longer word is not recognisable as the key there.
const shortKeyLen = 8

// keyPattern returns a regular expression that matches key however a server
// or a library may have escaped it on the way back: each character as is or
// in any of its escaped forms (see escapedForms), mixed freely, so that an
// encoder that escapes only some characters (Python's json escapes every
// non-ASCII one, PHP's every "/") is caught as well as one that escapes all.
func keyPattern(key string) *regexp.Regexp {
	if key == "" {
		return nil
	}
	var b strings.Builder
	for _, r := range key {
		b.WriteString("(?:")
		for i, f := range escapedForms(r) {
			if i > 0 {
				b.WriteByte('|')
			}
			b.WriteString(f)
		}
		b.WriteByte(')')
	}
	return regexp.MustCompile(b.String())
}

// escapedForms are the patterns of one character of a key: itself; JSON's
// \uXXXX (UTF-16, any case) and short escapes (\/, \", \\, \t); Go's
// \UXXXXXXXX and \xXX per byte; \u00XX per byte and its decoded form (a
// Latin-1 mis-encoding); URL escapes
// (%XX per byte, any case; "+" for a space); and HTML's &#N;, &#xH; and
// named entities.
func escapedForms(r rune) []string {
	utf8 := []byte(string(r))
	forms := []string{regexp.QuoteMeta(string(r))}
	var u16 strings.Builder
	if r1, r2 := utf16.EncodeRune(r); r1 != unicode.ReplacementChar {
		fmt.Fprintf(&u16, `(?i:\\u%04x\\u%04x)`, r1, r2)
	} else {
		fmt.Fprintf(&u16, `(?i:\\u%04x)`, r)
	}
	forms = append(forms, u16.String(), fmt.Sprintf(`(?i:\\U%08x)`, r))
	if len(utf8) > 1 { // each byte read as a Latin-1 character: mojibake
		var latin1 strings.Builder
		for _, c := range utf8 {
			latin1.WriteRune(rune(c))
		}
		forms = append(forms, regexp.QuoteMeta(latin1.String()))
	}
	switch r {
	case '/', '"', '\\':
		forms = append(forms, regexp.QuoteMeta(`\`+string(r)))
	case '\t':
		forms = append(forms, `\\t`)
	case ' ':
		forms = append(forms, `\+`)
	}
	perByte := func(format string) string {
		var s strings.Builder
		for _, c := range utf8 {
			fmt.Fprintf(&s, format, c)
		}
		return "(?i:" + s.String() + ")"
	}
	forms = append(forms, perByte(`\\x%02x`), perByte(`\\u00%02x`), perByte(`%%%02x`),
		fmt.Sprintf(`&#0*%d;`, r), fmt.Sprintf(`(?i:&#x0*%x;)`, r))
	if e := html.EscapeString(string(r)); e != string(r) {
		forms = append(forms, regexp.QuoteMeta(e))
	}
	switch r {
	case '"':
		forms = append(forms, `&quot;`)
	case '\'':
		forms = append(forms, `&apos;`)
	}
	return forms
}

// redactKey replaces every match of re (a key's pattern) in s. short says
// the key is shorter than shortKeyLen: then only a match that does not
// touch a letter or a digit on either side is replaced.
func redactKey(s string, re *regexp.Regexp, short bool) string {
	if re == nil || s == "" {
		return s
	}
	if !short {
		return re.ReplaceAllLiteralString(s, redacted)
	}
	var b strings.Builder
	last := 0
	for _, m := range re.FindAllStringIndex(s, -1) {
		if (m[0] > 0 && alnum(s[m[0]-1])) || (m[1] < len(s) && alnum(s[m[1]])) {
			continue
		}
		b.WriteString(s[last:m[0]])
		b.WriteString(redacted)
		last = m[1]
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

func alnum(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}

// redact removes the client's API key, in every form, from text that came
// from elsewhere (a server's message, a transport error).
func (c *Client) redact(s string) string {
	return redactKey(s, c.keyRE, len(c.apiKey) < shortKeyLen)
}

// redactCall is redact plus the call's own key, when WithAPIKey set one.
func (c *Client) redactCall(info *callInfo, s string) string {
	s = c.redact(s)
	if info != nil && info.apiKey != "" && info.apiKey != c.apiKey {
		s = redactKey(s, keyPattern(info.apiKey), len(info.apiKey) < shortKeyLen)
	}
	return s
}

// finishError stamps the call's metadata on its error and scrubs the keys
// from every string the error carries, whatever the server echoed into it.
func (c *Client) finishError(err error, info *callInfo) error {
	m := &info.meta
	switch e := err.(type) {
	case *Error:
		e.Attempts, e.Duration = m.Attempts, m.Duration
		if e.Header == nil {
			e.Header = m.Header
		}
		m.Timestamp = e.Timestamp
		c.scrubError(e, info)
	case *TransportError:
		e.Attempts, e.Duration = m.Attempts, m.Duration
		e.Method = c.redactCall(info, e.Method)
		e.Path = c.redactCall(info, e.Path)
		e.msg = c.redactCall(info, e.msg)
	}
	return err
}

// scrubError redacts every string field of e, and the values of its headers
// (on a copy: the response's own map is not touched).
func (c *Client) scrubError(e *Error, info *callInfo) {
	r := func(s string) string { return c.redactCall(info, s) }
	e.Code = ErrorCode(r(string(e.Code)))
	e.Message = r(e.Message)
	e.ErrorID = r(e.ErrorID)
	e.Path = r(e.Path)
	e.Method = r(e.Method)
	if len(e.Details) > 0 {
		if s := r(string(e.Details)); s != string(e.Details) {
			e.Details = json.RawMessage(s)
		}
	}
	if len(e.Body) > 0 {
		if s := r(string(e.Body)); s != string(e.Body) {
			e.Body = []byte(s)
		}
	}
	if e.Header != nil {
		h := make(http.Header, len(e.Header))
		for k, vs := range e.Header {
			out := make([]string, len(vs))
			for i, v := range vs {
				out[i] = r(v)
			}
			h[r(k)] = out
		}
		e.Header = h
	}
}
