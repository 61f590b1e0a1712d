package convo

import (
	"encoding/json"
	"net/http"

	"github.com/convoapi/convo-go/internal/keymatch"
)

// keyMatcher finds a key however a server or a library may have escaped it
// on the way back, once or twice over: JSON's, Go's, URL and HTML escapes,
// mixed freely, and a Latin-1 mis-decoding (internal/keymatch, the module's
// one key matcher, which the fake's journal and cmd/convofake use too). A
// key shorter than keymatch.ShortLen bytes is replaced only where it stands
// alone, so that a test key such as "O" does not garble every word holding
// it.
type keyMatcher struct {
	m *keymatch.Matcher
}

// newKeyMatcher returns the matcher of key; nil for an empty key.
func newKeyMatcher(key string) *keyMatcher {
	if key == "" {
		return nil
	}
	return &keyMatcher{m: keymatch.New(key)}
}

// redact replaces every match of the key in s by [REDACTED].
func (m *keyMatcher) redact(s string) string {
	if m == nil {
		return s
	}
	return m.m.Redact(s)
}

// redact removes the client's API key, in every form, from text that came
// from elsewhere (a server's message, a transport error).
func (c *Client) redact(s string) string {
	return c.key.redact(s)
}

// redact is the client's redact plus the call's own key, when WithAPIKey
// set one.
func (c *call) redact(s string) string {
	s = c.c.redact(s)
	if c.apiKey != "" && c.apiKey != c.c.apiKey {
		if c.keyMatch == nil { // built once per call, on the first text to scrub
			c.keyMatch = newKeyMatcher(c.apiKey)
		}
		s = c.keyMatch.redact(s)
	}
	return s
}

// finishError stamps the call's metadata on its error and scrubs the keys
// from every string the error carries, whatever the server echoed into it.
func (c *call) finishError(err error) error {
	m := &c.meta
	switch e := err.(type) {
	case *Error:
		e.Attempts, e.Duration = m.Attempts, m.Duration
		if e.Header == nil {
			e.Header = m.Header
		}
		m.Timestamp = e.Timestamp
		c.scrubError(e)
	case *TransportError:
		e.Attempts, e.Duration = m.Attempts, m.Duration
		e.Method = c.redact(e.Method)
		e.Path = c.redact(e.Path)
		e.msg = c.redact(e.msg)
	}
	return err
}

// scrubError redacts every string field of e, and the values of its headers
// (on a copy: the response's own map is not touched).
func (c *call) scrubError(e *Error) {
	r := c.redact
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
