package keymatch

import (
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/convoapi/convo-go/internal/testkit"
)

// Every key of keyforms, in every escaping, and in every escaping of every
// escaping (a key escaped twice, by the same escaper or two), is replaced
// whole, with the text around it kept.
func TestRedactEveryFormOnceAndTwice(t *testing.T) {
	var cases, missed int
	for _, key := range testkit.Keys {
		m := New(key)
		for name1, e1 := range testkit.Escapings {
			forms := map[string]string{name1: e1(key)}
			for name2, e2 := range testkit.Escapings {
				forms[name1+" then "+name2] = e2(e1(key))
				forms[name1+" then "+name2+" in a URL path"] = url.PathEscape(e2(e1(key)))
			}
			for name, form := range forms {
				cases++
				got := m.Redact("before " + form + " after")
				if got != "before "+Redacted+" after" {
					missed++
					t.Errorf("key %.12q, %s: %q", key, name, got)
				}
			}
		}
	}
	t.Logf("%d forms of %d keys, %d missed", cases, len(testkit.Keys), missed)
}

func TestRedact(t *testing.T) {
	tests := []struct {
		name string
		keys []string
		in   string
		want string
	}{
		{"no key", nil, "sk_live_abcdef", "sk_live_abcdef"},
		{"an empty key", []string{""}, "text", "text"},
		{"as is, twice", []string{"sk_live_abcdef"}, "a sk_live_abcdef b sk_live_abcdef", "a [REDACTED] b [REDACTED]"},
		{"mixed escapes", []string{"sk_live_abcdef"}, `"\u0073k_l%69ve&#95;abcdef"`, `"[REDACTED]"`},
		{"JSON escaped twice", []string{"sk_live_abcdef"}, `{"m": "\\u0073\\u006b_live_abcdef"}`, `{"m": "[REDACTED]"}`},
		{"a surrogate pair", []string{"key-🔑-0123"}, `key-\ud83d\udd11-0123`, "[REDACTED]"},
		{"the Latin-1 misreading", []string{"clé-0123456"}, "clÃ©-0123456", "[REDACTED]"},
		{"two keys", []string{"first-key-1", "second-key-2"}, "first-key-1/second%2Dkey-2", "[REDACTED]/[REDACTED]"},
		{"overlapping finds merge", []string{"abcabcabc"}, "abcabcabcabc", "[REDACTED]"},
		{"a space as +", []string{"key with spaces"}, "q=key+with+spaces&x=key%2Bwith%2Bspaces", "q=[REDACTED]&x=[REDACTED]"},
		{"a short key alone", []string{"O"}, "key O is unknown", "key [REDACTED] is unknown"},
		{"a short key in a word is kept", []string{"O"}, "convo: 404 NOT_FOUND", "convo: 404 NOT_FOUND"},
		{"a short key escaped, alone", []string{"k1"}, "key %6B1 here", "key [REDACTED] here"},
		{"a lone backslash or percent", []string{"sk_live_abcdef"}, `100% \ & done`, `100% \ & done`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := New(tt.keys...)
			assert.Equal(t, tt.want, m.Redact(tt.in))
			assert.Equal(t, tt.want != tt.in, m.Contains(tt.in))
		})
	}
	var nilMatcher *Matcher
	assert.Equal(t, "x", nilMatcher.Redact("x"))
}

// Redact is linear: a body of a megabyte full of escapes is redacted in
// one pass per layer.
func TestRedactLargeEscapedBody(t *testing.T) {
	key := "sk_live_4eC39HqLyjWDarjtT1zdp7dc"
	body := strings.Repeat(`{"a":"\u00e9%41&amp;"}`, 40_000) + testkit.Escapings["json \\u"](key)
	got := New(key).Redact(body)
	assert.True(t, strings.HasSuffix(got, Redacted))
	assert.Equal(t, len(body)-len(testkit.Escapings["json \\u"](key))+len(Redacted), len(got))
}

func BenchmarkRedactPlainBody(b *testing.B) {
	m := New("sk_live_4eC39HqLyjWDarjtT1zdp7dc", "fake-api-key", "ck_0123456789abcdef")
	body := strings.Repeat(`{"phone_number": "+55 11 98765-4321", "name": "Ana"}`, 200)
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		m.Redact(body)
	}
}

func BenchmarkRedactEscapedBody(b *testing.B) {
	m := New("sk_live_4eC39HqLyjWDarjtT1zdp7dc", "fake-api-key", "ck_0123456789abcdef")
	body := strings.Repeat(`{"name": "Ana \u00e9 100% & co"}`, 200)
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		m.Redact(body)
	}
}
