package main

import (
	"bytes"
	"encoding/json"
	"slices"
	"strconv"
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
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.UseNumber()
		var out bytes.Buffer
		if err := redactJSON(dec, &out); err == nil {
			return out.Bytes()
		}
	}
	return jsonString(strings.ToValidUTF8(string(b), "\uFFFD"))
}

// redactJSON copies one JSON value from dec to out, compact, keeping the
// order of fields, with key-like fields redacted.
func redactJSON(dec *json.Decoder, out *bytes.Buffer) error {
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	switch t := tok.(type) {
	case json.Delim:
		return redactContainer(t, dec, out)
	case string:
		out.Write(jsonString(t))
	case json.Number:
		out.WriteString(t.String())
	case bool:
		out.WriteString(strconv.FormatBool(t))
	case nil:
		out.WriteString("null")
	}
	return nil
}

// redactContainer copies the rest of an object or array opened by open.
func redactContainer(open json.Delim, dec *json.Decoder, out *bytes.Buffer) error {
	if open == '[' {
		out.WriteByte('[')
		for i := 0; dec.More(); i++ {
			if i > 0 {
				out.WriteByte(',')
			}
			if err := redactJSON(dec, out); err != nil {
				return err
			}
		}
		out.WriteByte(']')
		_, err := dec.Token()
		return err
	}
	out.WriteByte('{')
	for i := 0; dec.More(); i++ {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		name, _ := tok.(string)
		if i > 0 {
			out.WriteByte(',')
		}
		out.Write(jsonString(name))
		out.WriteByte(':')
		if keyLikeName(name) {
			err = skipValue(dec, out)
		} else {
			err = redactJSON(dec, out)
		}
		if err != nil {
			return err
		}
	}
	out.WriteByte('}')
	_, err := dec.Token()
	return err
}

// skipValue consumes one JSON value and writes "[REDACTED]" in its place
// (null stays null: there was nothing to hide).
func skipValue(dec *json.Decoder, out *bytes.Buffer) error {
	var v json.RawMessage
	if err := dec.Decode(&v); err != nil {
		return err
	}
	if string(v) == "null" {
		out.WriteString("null")
	} else {
		out.Write(jsonString(fake.Redacted))
	}
	return nil
}

// jsonString encodes s as a JSON string without HTML escaping.
func jsonString(s string) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // a string always encodes
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
}
