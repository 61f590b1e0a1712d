package convo

import (
	"bytes"
	"encoding/json"
	"html"
	"net/http"
	"net/url"
	"strings"
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

// keyForms returns the forms in which a key can come back in text: as is,
// JSON-escaped (with and without the HTML-safe \u003c escapes), URL-escaped
// (query and path styles, upper- and lower-case hex) and HTML-escaped.
func keyForms(key string) []string {
	if key == "" {
		return nil
	}
	forms := []string{key}
	add := func(f string) {
		for _, have := range forms {
			if have == f {
				return
			}
		}
		forms = append(forms, f)
	}
	if b, err := json.Marshal(key); err == nil {
		add(string(b[1 : len(b)-1]))
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if enc.Encode(key) == nil {
		b := bytes.TrimSpace(buf.Bytes())
		add(string(b[1 : len(b)-1]))
	}
	for _, f := range []string{url.QueryEscape(key), url.PathEscape(key)} {
		add(f)
		add(lowerHex(f))
	}
	add(html.EscapeString(key))
	return forms
}

// lowerHex writes the %XX escapes of an URL-escaped string in lower case.
func lowerHex(s string) string {
	b := []byte(s)
	for i := 0; i+2 < len(b); i++ {
		if b[i] == '%' {
			b[i+1], b[i+2] = lowerASCII(b[i+1]), lowerASCII(b[i+2])
		}
	}
	return string(b)
}

func lowerASCII(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// redactForms removes every form of a key from s (see shortKeyLen for keys
// shorter than eight bytes).
func redactForms(s string, forms []string) string {
	if len(forms) == 0 || s == "" {
		return s
	}
	whole := len(forms[0]) < shortKeyLen
	for _, f := range forms {
		if strings.Contains(s, f) {
			s = replaceKey(s, f, whole)
		}
	}
	return s
}

// replaceKey replaces f in s; with whole set, only where f is not glued to a
// letter or a digit on either side.
func replaceKey(s, f string, whole bool) string {
	if !whole {
		return strings.ReplaceAll(s, f, redacted)
	}
	var b strings.Builder
	for {
		i := strings.Index(s, f)
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		end := i + len(f)
		alone := (i == 0 || !alnum(s[i-1]) || !alnum(f[0])) &&
			(end == len(s) || !alnum(s[end]) || !alnum(f[len(f)-1]))
		if alone {
			b.WriteString(s[:i])
			b.WriteString(redacted)
		} else {
			b.WriteString(s[:end])
		}
		s = s[end:]
	}
}

func alnum(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}

// redact removes the client's API key, in every form, from text that came
// from elsewhere (a server's message, a transport error).
func (c *Client) redact(s string) string { return redactForms(s, c.keyForms) }

// redactCall is redact plus the call's own key, when WithAPIKey set one.
func (c *Client) redactCall(info *callInfo, s string) string {
	s = c.redact(s)
	if info != nil && info.apiKey != "" && info.apiKey != c.apiKey {
		s = redactForms(s, keyForms(info.apiKey))
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
