// Package recordredact removes secrets from text that is to be written
// down (a recording, a report): every occurrence of a secret, as is or in
// the escapings a server, a proxy or an encoder may give it (JSON's \u
// escapes, Go quoting, URL and HTML escapes, \/), whatever the case of their
// hexadecimal digits.
package recordredact

import (
	"fmt"
	"html"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf16"
)

// Marker replaces each secret.
const Marker = "[REDACTED]"

// Redactor replaces secrets in text. The zero value replaces nothing.
type Redactor struct {
	re *regexp.Regexp
}

// New returns a redactor of the secrets (empty ones are ignored).
func New(secrets ...string) *Redactor {
	var forms []string
	for _, s := range secrets {
		if s == "" {
			continue
		}
		forms = append(forms, Forms(s)...)
	}
	if len(forms) == 0 {
		return &Redactor{}
	}
	slices.SortFunc(forms, func(a, b string) int { return len(b) - len(a) }) // longest first
	quoted := make([]string, 0, len(forms))
	for _, f := range slices.Compact(forms) {
		quoted = append(quoted, regexp.QuoteMeta(f))
	}
	// (?i): hexadecimal escapes come in both cases, and redacting a key
	// spelt in another case too is harmless.
	return &Redactor{re: regexp.MustCompile("(?i)" + strings.Join(quoted, "|"))}
}

// String returns s with every secret replaced by Marker.
func (r *Redactor) String(s string) string {
	if r == nil || r.re == nil {
		return s
	}
	return r.re.ReplaceAllLiteralString(s, Marker)
}

// Bytes is String for a byte slice.
func (r *Redactor) Bytes(b []byte) []byte {
	if r == nil || r.re == nil {
		return b
	}
	return r.re.ReplaceAllLiteral(b, []byte(Marker))
}

// Forms are the spellings of s that Redactor matches.
func Forms(s string) []string {
	q := strconv.QuoteToASCII(s)
	forms := []string{
		s,
		q[1 : len(q)-1],
		perByte(s, `\x%02x`),
		jsonEveryChar(s),
		perByte(s, `\u00%02x`),
		strings.ReplaceAll(s, "/", `\/`),
		url.QueryEscape(s),
		url.PathEscape(s),
		perByte(s, "%%%02X"),
		html.EscapeString(s),
		perRune(s, "&#%d;"),
		perRune(s, "&#x%X;"),
		jsonHTMLSafe(s),
	}
	return forms
}

func perByte(s, format string) string {
	var b strings.Builder
	for _, c := range []byte(s) {
		fmt.Fprintf(&b, format, c)
	}
	return b.String()
}

func perRune(s, format string) string {
	var b strings.Builder
	for _, r := range s {
		fmt.Fprintf(&b, format, r)
	}
	return b.String()
}

func jsonEveryChar(s string) string {
	var b strings.Builder
	for _, u := range utf16.Encode([]rune(s)) {
		fmt.Fprintf(&b, `\u%04x`, u)
	}
	return b.String()
}

// jsonHTMLSafe is s as encoding/json writes it inside a string by default:
// <, > and & as \u003c, \u003e, \u0026.
func jsonHTMLSafe(s string) string {
	return strings.NewReplacer("<", `\u003c`, ">", `\u003e`, "&", `\u0026`).Replace(s)
}
