// This file (formerly package keyforms) lists the ways a server, a proxy or another language's
// encoder may write a secret back, for the tests that check that no form of
// the API key leaks: Go's quoting, JSON's \uXXXX of every character (and of
// every byte, as a Latin-1 mis-encoding does), PHP's \/, URL and HTML
// escapes. It is test support, shared by the client's and otelconvo's tests.

package testkit

import (
	"fmt"
	"html"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"unicode/utf16"
)

// Escapings are the escapings by name.
var Escapings = map[string]func(string) string{
	"as is":       func(k string) string { return k },
	"go quote":    func(k string) string { q := strconv.QuoteToASCII(k); return q[1 : len(q)-1] },
	"go bytes":    func(k string) string { return perByte(k, `\x%02x`) },
	"json \\u":    jsonEveryChar,
	"\\u00XX":     func(k string) string { return perByte(k, `\u00%02x`) },
	"slash":       func(k string) string { return strings.ReplaceAll(k, "/", `\/`) },
	"url query":   url.QueryEscape,
	"url path":    url.PathEscape,
	"url bytes":   func(k string) string { return perByte(k, "%%%02X") },
	"url lower":   func(k string) string { return perByte(k, "%%%02x") },
	"html":        html.EscapeString,
	"html number": func(k string) string { return perRune(k, "&#%d;") },
	"html hex":    func(k string) string { return perRune(k, "&#x%X;") },
}

// Keys are three keys to check with: plain ASCII, ASCII that URL and HTML
// escape, and non-ASCII with a character outside the BMP.
var Keys = []string{
	"sk_live_4eC39HqLyjWDarjtT1zdp7dc",
	"key/with+plus=and/slashes&more<>",
	"clé-ünïcödé-秘密-🔑-0123456789",
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

// Forms is key in every escaping, and every escaping of every escaping
// (twice over), each once.
func Forms(key string) []string {
	seen := map[string]bool{}
	var out []string
	add := func(s string) {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	for _, name1 := range names() {
		once := Escapings[name1](key)
		add(once)
		for _, name2 := range names() {
			add(Escapings[name2](once))
		}
	}
	return out
}

// Runs are the runs of n characters of key: a text that holds one holds a
// piece of the key.
func Runs(key string, n int) []string {
	rs := []rune(key)
	var out []string
	for i := 0; i+n <= len(rs); i++ {
		out = append(out, string(rs[i:i+n]))
	}
	return out
}

func names() []string {
	out := make([]string, 0, len(Escapings))
	for name := range Escapings {
		out = append(out, name)
	}
	sort.Strings(out)
	return out
}
