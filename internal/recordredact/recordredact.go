// Package recordredact removes secrets from text that is to be written
// down (a recording, a report). It finds them with the module's one key
// matcher (internal/keymatch): as is, or escaped once or twice over in any of
// the ways a server, a proxy or an encoder may write them back.
package recordredact

import "github.com/convoapi/convo-go/internal/keymatch"

// Marker replaces each secret.
const Marker = keymatch.Redacted

// Redactor replaces secrets in text. The zero value and nil replace
// nothing.
type Redactor struct {
	m *keymatch.Matcher
}

// New returns a redactor of the secrets (empty ones are ignored).
func New(secrets ...string) *Redactor { return &Redactor{m: keymatch.New(secrets...)} }

// String returns s with every secret replaced by Marker.
func (r *Redactor) String(s string) string {
	if r == nil || r.m == nil {
		return s
	}
	return r.m.Redact(s)
}

// Bytes is String for a byte slice; b itself comes back when it holds no
// secret.
func (r *Redactor) Bytes(b []byte) []byte {
	if r == nil || r.m == nil {
		return b
	}
	if out := r.m.Redact(string(b)); out != string(b) {
		return []byte(out)
	}
	return b
}
