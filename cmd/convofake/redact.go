package main

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"

	"github.com/convoapi/convo-go/fake"
)

// keyLikeName reports whether a JSON field, query parameter or header name
// names a credential, whatever its case and separators (api_key, apiKey,
// X-Api-Key): key, token, secret, password, passwd, authorization, auth,
// cookie and credentials alone, or a name ending in apikey, token, secret,
// password, privatekey, accesskey or secretkey (access_token,
// client_secret, db_password).
func keyLikeName(name string) bool {
	n := strings.Map(func(r rune) rune {
		switch r {
		case '_', '-', '.', ' ':
			return -1
		}
		return r
	}, strings.ToLower(name))
	switch n {
	case "key", "token", "secret", "password", "passwd", "authorization", "auth", "cookie", "credentials":
		return true
	}
	for _, suffix := range []string{"apikey", "token", "secret", "password", "privatekey", "accesskey", "secretkey", "authorization", "cookie"} {
		if strings.HasSuffix(n, suffix) {
			return true
		}
	}
	return false
}

// redactValues copies a query or header map with the values of key-like
// names replaced by [REDACTED] (an Authorization-like header keeps its
// scheme: "Bearer [REDACTED]"). The fake's journal has already redacted
// the API keys wherever they appear.
func redactValues(m map[string][]string) map[string][]string {
	out := make(map[string][]string, len(m))
	for k, vs := range m {
		cp := slices.Clone(vs)
		if keyLikeName(k) {
			for i, v := range cp {
				cp[i] = fake.Redacted
				if scheme, _, ok := strings.Cut(v, " "); ok && strings.HasSuffix(strings.ToLower(k), "authorization") {
					cp[i] = scheme + " " + fake.Redacted
				}
			}
		}
		out[k] = cp
	}
	return out
}

// bodyJSON is a journaled body as the admin journal shows it: JSON when it
// is JSON, with the value of every key-like field (at any depth) replaced
// by "[REDACTED]"; else a string; null when empty.
func bodyJSON(b []byte) json.RawMessage {
	if len(bytes.TrimSpace(b)) == 0 {
		return json.RawMessage("null")
	}
	if json.Valid(b) {
		var out bytes.Buffer
		redactJSON(b, &out)
		return out.Bytes()
	}
	return jsonString(strings.ToValidUTF8(string(b), "\uFFFD"))
}

// redactJSON copies one valid JSON value to out, compact, keeping the order
// of fields, with the value of every key-like field (but null) redacted.
func redactJSON(v json.RawMessage, out *bytes.Buffer) {
	v = bytes.TrimSpace(v)
	if v[0] != '{' && v[0] != '[' {
		out.Write(v) // a scalar, as sent
		return
	}
	dec := json.NewDecoder(bytes.NewReader(v))
	open, _ := dec.Token()
	out.WriteByte(v[0])
	for i := 0; dec.More(); i++ {
		if i > 0 {
			out.WriteByte(',')
		}
		var name string
		if open == json.Delim('{') {
			tok, _ := dec.Token()
			name, _ = tok.(string)
			out.Write(jsonString(name))
			out.WriteByte(':')
		}
		var elem json.RawMessage
		_ = dec.Decode(&elem) // v is valid JSON
		if keyLikeName(name) && string(elem) != "null" {
			out.Write(jsonString(fake.Redacted))
		} else {
			redactJSON(elem, out)
		}
	}
	out.WriteByte(v[len(v)-1])
}

// jsonString encodes s as a JSON string without HTML escaping.
func jsonString(s string) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // a string always encodes
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
}
