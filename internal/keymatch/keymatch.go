// Package keymatch is the one key matcher of the module: the client's
// redaction of its errors and logs, the fake's request journal and
// cmd/convofake's log lines and error texts all find API keys with it.
//
// A key is found however a server, a proxy or an encoder wrote it back, once
// or twice over: as is; with JSON's \uXXXX (surrogate pairs too), \/, \",
// \\ and the other short escapes; Go's \xXX and \UXXXXXXXX; URL escapes
// (%XX in either case; "+" for a space); HTML's &#N;, &#xH; and named
// entities; and each of those mixed within one key (an encoder that escapes
// only some characters) or applied on top of another (\\u0073 is \u0073
// escaped again, %2573 is %73). A key with characters beyond ASCII is found
// in its Latin-1 mis-decoding too (é read as Ã©), whether written as is or
// escaped.
//
// The text is decoded up to three times (twice over, and once more for the
// escaping of the place it travels in, such as a URL path), each decoded
// character remembering the span of the text it came from; a key found in
// the text or in any decoding has its span replaced.
package keymatch

import (
	"bytes"
	"slices"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// Redacted replaces every key found.
const Redacted = "[REDACTED]"

// ShortLen is the length under which a key is replaced only as a whole
// token. A long key is replaced wherever it appears; a short one (a test
// key such as "k1") would, replaced everywhere, garble every word that
// happens to contain it ("convo: 404 NOT_FOUND" for a key "O"), so it is
// replaced only where it stands alone: its span neither preceded nor
// followed by a letter or a digit.
const ShortLen = 8

// Matcher finds a set of keys. The zero value and nil find nothing. It is
// safe for concurrent use (it is never changed after New).
type Matcher struct {
	keys []needles
}

// needles are the byte strings of one key: its UTF-8, its Latin-1
// mis-decoding when it has non-ASCII characters, and each of those with
// "+" for a space (a URL query's), when it has spaces. ("+" is not decoded
// as a space: a key may hold a "+" of its own.)
type needles struct {
	forms [][]byte
	short bool
}

// New returns the matcher of keys; empty keys are left out.
func New(keys ...string) *Matcher {
	m := &Matcher{}
	for _, k := range keys {
		if k == "" {
			continue
		}
		n := needles{forms: [][]byte{[]byte(k)}, short: len(k) < ShortLen}
		if moji := latin1Misread(k); moji != k {
			n.forms = append(n.forms, []byte(moji))
		}
		for _, f := range n.forms {
			if bytes.IndexByte(f, ' ') >= 0 {
				n.forms = append(n.forms, bytes.ReplaceAll(f, []byte(" "), []byte("+")))
			}
		}
		m.keys = append(m.keys, n)
	}
	return m
}

// latin1Misread is k's UTF-8 bytes each read as a Latin-1 character.
func latin1Misread(k string) string {
	var b strings.Builder
	for i := 0; i < len(k); i++ {
		b.WriteRune(rune(k[i]))
	}
	return b.String()
}

// Redact returns s with the span of every key found replaced by
// [Redacted].
func (m *Matcher) Redact(s string) string {
	spans := m.find(s)
	if len(spans) == 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	last := 0
	for _, sp := range spans {
		b.WriteString(s[last:sp.lo])
		b.WriteString(Redacted)
		last = sp.hi
	}
	b.WriteString(s[last:])
	return b.String()
}

// Contains reports whether s holds a key, in any of the forms Redact finds.
func (m *Matcher) Contains(s string) bool { return len(m.find(s)) > 0 }

// maxDepth is how many layers of escapes are undone: a key escaped twice
// over (by a server, then a proxy), then once more by the way it travels
// (a URL path's own escaping).
const maxDepth = 3

type span struct{ lo, hi int }

// find returns the spans of s holding a key, sorted and merged.
func (m *Matcher) find(s string) []span {
	if m == nil || len(m.keys) == 0 || s == "" {
		return nil
	}
	spans := m.searchRaw(s)
	if !strings.ContainsAny(s, `\%&`) { // nothing to decode: the common case, without copies
		return merge(spans)
	}
	level := raw(s)
	for range maxDepth {
		next, changed := decode(level)
		if !changed {
			break
		}
		level = next
		spans = m.search(s, level, spans)
	}
	return merge(spans)
}

// searchRaw returns the spans where s itself holds a key.
func (m *Matcher) searchRaw(s string) []span {
	var spans []span
	for _, k := range m.keys {
		for _, form := range k.forms {
			for from := 0; ; {
				i := strings.Index(s[from:], string(form))
				if i < 0 {
					break
				}
				i += from
				sp := span{i, i + len(form)}
				if !k.short || alone(s, sp) {
					spans = append(spans, sp)
				}
				from = i + 1
			}
		}
	}
	return spans
}

// search adds the spans of s where level holds a key.
func (m *Matcher) search(s string, level stream, spans []span) []span {
	for _, k := range m.keys {
		for _, form := range k.forms {
			for from := 0; ; {
				i := bytes.Index(level.b[from:], form)
				if i < 0 {
					break
				}
				i += from
				sp := span{int(level.lo[i]), int(level.hi[i+len(form)-1])}
				if !k.short || alone(s, sp) {
					spans = append(spans, sp)
				}
				from = i + 1
			}
		}
	}
	return spans
}

// alone reports whether the span neither follows nor precedes a letter or
// a digit in s.
func alone(s string, sp span) bool {
	return (sp.lo == 0 || !alnum(s[sp.lo-1])) && (sp.hi == len(s) || !alnum(s[sp.hi]))
}

func alnum(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}

// merge sorts spans and joins those that overlap or touch.
func merge(spans []span) []span {
	if len(spans) < 2 {
		return spans
	}
	slices.SortFunc(spans, func(a, b span) int { return a.lo - b.lo })
	out := spans[:1]
	for _, sp := range spans[1:] {
		if last := &out[len(out)-1]; sp.lo <= last.hi {
			last.hi = max(last.hi, sp.hi)
		} else {
			out = append(out, sp)
		}
	}
	return out
}

// stream is a text as bytes, each with the span [lo, hi) of the original
// text it was decoded from.
type stream struct {
	b      []byte
	lo, hi []int32
}

func raw(s string) stream {
	st := stream{b: []byte(s), lo: make([]int32, len(s)), hi: make([]int32, len(s))}
	for i := range s {
		st.lo[i], st.hi[i] = int32(i), int32(i+1)
	}
	return st
}

func (st *stream) emit(c byte, lo, hi int32) {
	st.b = append(st.b, c)
	st.lo = append(st.lo, lo)
	st.hi = append(st.hi, hi)
}

func (st *stream) emitRune(r rune, lo, hi int32) {
	var buf [utf8.UTFMax]byte
	for _, c := range buf[:utf8.EncodeRune(buf[:], r)] {
		st.emit(c, lo, hi)
	}
}

// decode undoes one layer of escapes of in; changed is false when there
// was none.
func decode(in stream) (out stream, changed bool) {
	if !bytes.ContainsAny(in.b, `\%&`) {
		return in, false
	}
	n := len(in.b)
	out = stream{b: make([]byte, 0, n), lo: make([]int32, 0, n), hi: make([]int32, 0, n)}
	for i := 0; i < n; {
		// Copy the run up to the next character that may open an escape.
		j := bytes.IndexAny(in.b[i:], `\%&`)
		if j < 0 {
			j = n - i
		}
		if j > 0 {
			out.b = append(out.b, in.b[i:i+j]...)
			out.lo = append(out.lo, in.lo[i:i+j]...)
			out.hi = append(out.hi, in.hi[i:i+j]...)
			i += j
			continue
		}
		size, r, isByte := escapeAt(in.b, i)
		if size == 0 {
			out.emit(in.b[i], in.lo[i], in.hi[i])
			i++
			continue
		}
		changed = true
		lo, hi := in.lo[i], in.hi[i+size-1]
		if isByte {
			out.emit(byte(r), lo, hi)
		} else {
			out.emitRune(r, lo, hi)
		}
		i += size
	}
	return out, changed
}

// escapeAt reads an escape at b[i]: its length (0: none), what it stands
// for, and whether that is a byte (%XX, \xXX) rather than a character.
func escapeAt(b []byte, i int) (size int, r rune, isByte bool) {
	switch b[i] {
	case '%':
		if v, ok := hexAt(b, i+1, 2); ok {
			return 3, rune(v), true
		}
	case '\\':
		return backslashAt(b, i)
	case '&':
		return entityAt(b, i)
	}
	return 0, 0, false
}

// backslashAt reads a backslash escape of JSON, Go or JavaScript.
func backslashAt(b []byte, i int) (int, rune, bool) {
	if i+1 >= len(b) {
		return 0, 0, false
	}
	switch c := b[i+1]; c {
	case 'u':
		v, ok := hexAt(b, i+2, 4)
		if !ok {
			return 0, 0, false
		}
		if utf16.IsSurrogate(rune(v)) && i+11 < len(b) && b[i+6] == '\\' && b[i+7] == 'u' {
			if lo, ok := hexAt(b, i+8, 4); ok {
				if r := utf16.DecodeRune(rune(v), rune(lo)); r != utf8.RuneError {
					return 12, r, false
				}
			}
		}
		return 6, rune(v), false
	case 'U':
		if v, ok := hexAt(b, i+2, 8); ok && v <= utf8.MaxRune {
			return 10, rune(v), false
		}
	case 'x':
		if v, ok := hexAt(b, i+2, 2); ok {
			return 4, rune(v), true
		}
	case '/', '"', '\\', '\'':
		return 2, rune(c), false
	case 't':
		return 2, '\t', false
	case 'n':
		return 2, '\n', false
	case 'r':
		return 2, '\r', false
	}
	return 0, 0, false
}

// entities are the named HTML entities an escaper writes.
var entities = map[string]rune{"amp": '&', "lt": '<', "gt": '>', "quot": '"', "apos": '\''}

// entityAt reads an HTML character reference: &#N;, &#xH; or a named one.
func entityAt(b []byte, i int) (int, rune, bool) {
	end := bytes.IndexByte(b[i+1:min(len(b), i+12)], ';')
	if end < 1 {
		return 0, 0, false
	}
	name := string(b[i+1 : i+1+end])
	size := end + 2
	if r, ok := entities[name]; ok {
		return size, r, false
	}
	if !strings.HasPrefix(name, "#") {
		return 0, 0, false
	}
	digits, base := name[1:], 10
	if strings.HasPrefix(digits, "x") || strings.HasPrefix(digits, "X") {
		digits, base = digits[1:], 16
	}
	if digits == "" {
		return 0, 0, false
	}
	v := 0
	for _, c := range []byte(digits) {
		d, ok := digit(c, base)
		if !ok || v > utf8.MaxRune {
			return 0, 0, false
		}
		v = v*base + d
	}
	if v > utf8.MaxRune {
		return 0, 0, false
	}
	return size, rune(v), false
}

// hexAt reads n hex digits at b[i].
func hexAt(b []byte, i, n int) (int, bool) {
	if i+n > len(b) {
		return 0, false
	}
	v := 0
	for _, c := range b[i : i+n] {
		d, ok := digit(c, 16)
		if !ok {
			return 0, false
		}
		v = v*16 + d
	}
	return v, true
}

func digit(c byte, base int) (int, bool) {
	switch {
	case '0' <= c && c <= '9':
		return int(c - '0'), true
	case base == 16 && 'a' <= c && c <= 'f':
		return int(c-'a') + 10, true
	case base == 16 && 'A' <= c && c <= 'F':
		return int(c-'A') + 10, true
	}
	return 0, false
}
