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
	"unicode/utf8"
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

// keyMatcher finds a key however a server or a library may have escaped it
// on the way back: each character as is or in any of its escaped forms (see
// escapedForms), mixed freely, so that an encoder that escapes only some
// characters (Python's json escapes every non-ASCII one, PHP's every "/") is
// caught as well as one that escapes all.
type keyMatcher struct {
	re    *regexp.Regexp
	lead  string // the characters a match can start with: a cheap pre-test
	short bool   // shorter than shortKeyLen: replaced only as a whole token
}

// newKeyMatcher returns the matcher of key; nil for an empty key.
func newKeyMatcher(key string) *keyMatcher {
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
	first, _ := utf8.DecodeRuneInString(key)
	return &keyMatcher{re: regexp.MustCompile(b.String()), lead: string(first) + `\%&+` + string(latin1Lead(first)),
		short: len(key) < shortKeyLen}
}

// latin1Lead is the first character of r's Latin-1 mis-decoding.
func latin1Lead(r rune) rune {
	return rune([]byte(string(r))[0])
}

// escapedForms are the patterns of one character of a key: itself; JSON's
// \uXXXX (UTF-16, any case) and short escapes (\/, \", \\, \t); Go's
// \UXXXXXXXX and \xXX per byte; \u00XX per byte and its decoded form (a
// Latin-1 mis-encoding); URL escapes
// (%XX per byte, any case; "+" for a space); and HTML's &#N;, &#xH; and
// named entities.
func escapedForms(r rune) []string {
	bytes := []byte(string(r))
	forms := []string{regexp.QuoteMeta(string(r))}
	var u16 strings.Builder
	if r1, r2 := utf16.EncodeRune(r); r1 != unicode.ReplacementChar {
		fmt.Fprintf(&u16, `(?i:\\u%04x\\u%04x)`, r1, r2)
	} else {
		fmt.Fprintf(&u16, `(?i:\\u%04x)`, r)
	}
	forms = append(forms, u16.String(), fmt.Sprintf(`(?i:\\U%08x)`, r))
	if len(bytes) > 1 { // each byte read as a Latin-1 character: mojibake
		var latin1 strings.Builder
		for _, c := range bytes {
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
		for _, c := range bytes {
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

// redact replaces every match of the key in s; a short key only where the
// match does not touch a letter or a digit on either side.
func (m *keyMatcher) redact(s string) string {
	if m == nil || !strings.ContainsAny(s, m.lead) {
		return s
	}
	if !m.short {
		return m.re.ReplaceAllLiteralString(s, redacted)
	}
	var b strings.Builder
	last := 0
	for _, loc := range m.re.FindAllStringIndex(s, -1) {
		if (loc[0] > 0 && alnum(s[loc[0]-1])) || (loc[1] < len(s) && alnum(s[loc[1]])) {
			continue
		}
		b.WriteString(s[last:loc[0]])
		b.WriteString(redacted)
		last = loc[1]
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
	return c.key.redact(s)
}

// redactCall is redact plus the call's own key, when WithAPIKey set one.
func (c *Client) redactCall(info *callInfo, s string) string {
	s = c.redact(s)
	if info != nil && info.apiKey != "" && info.apiKey != c.apiKey {
		if info.keyMatch == nil { // built once per call, on the first text to scrub
			info.keyMatch = newKeyMatcher(info.apiKey)
		}
		s = info.keyMatch.redact(s)
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
