package conformance

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"path"
	"strings"

	"github.com/convoapi/convo-go/internal/phone"
)

// pseudonymiser replaces personal values by stand-ins derived from them
// with a keyed hash: the same value always gets the same stand-in, so a
// phone in a query still finds the conversation whose channel_identifier
// it was.
type pseudonymiser struct{ key []byte }

func newPseudonymiser(salt string) *pseudonymiser {
	if salt == "" {
		salt = "convo-go recording"
	}
	return &pseudonymiser{key: []byte(salt)}
}

func (p *pseudonymiser) sum(kind, v string) []byte {
	m := hmac.New(sha256.New, p.key)
	m.Write([]byte(kind + "\x00" + v))
	return m.Sum(nil)
}

// phone maps a phone number to digits of the same length (at least 8),
// starting with 99. A value that is not a phone is treated as an
// identifier.
func (p *pseudonymiser) phone(v string) string {
	digits, err := phone.Normalize(v)
	if err != nil {
		return p.ident(v)
	}
	sum := p.sum("phone", digits)
	var b strings.Builder
	b.WriteString("99")
	for i := 2; i < len(digits); i++ {
		b.WriteByte('0' + sum[i%len(sum)]%10)
	}
	return b.String()
}

func (p *pseudonymiser) ident(v string) string {
	return "id-" + hex.EncodeToString(p.sum("ident", v))[:12]
}

func (p *pseudonymiser) text(kind, v string) string {
	if v == "" {
		return v
	}
	return kind + "-" + hex.EncodeToString(p.sum(kind, v))[:10]
}

// phoneKeys are the fields and query parameters holding a phone or a
// contact's address on a channel.
var phoneKeys = map[string]bool{"phone": true, "phone_number": true, "channel_identifier": true}

// param pseudonymises a query parameter's value.
func (p *pseudonymiser) param(name, v string) string {
	if phoneKeys[name] {
		return p.phone(v)
	}
	return v
}

// value pseudonymises a JSON value found under key.
func (p *pseudonymiser) value(key string, v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, vv := range x {
			if k == "custom_fields" {
				if m, ok := vv.(map[string]any); ok {
					for ck, cv := range m {
						if s, ok := cv.(string); ok {
							m[ck] = p.text("value", s)
						}
					}
					continue
				}
			}
			x[k] = p.value(k, vv)
		}
		return x
	case []any:
		for i := range x {
			x[i] = p.value(key, x[i])
		}
		return x
	case string:
		return p.str(key, x)
	}
	return v
}

func (p *pseudonymiser) str(key, s string) string {
	switch key {
	case "phone", "phone_number", "channel_identifier":
		return p.phone(s)
	case "name", "display_name":
		return p.text("name", s)
	case "text", "body":
		return p.text("text", s)
	case "email":
		return p.text("email", s) + "@example.com"
	case "filename":
		return p.text("file", s) + path.Ext(s)
	case "url":
		return p.fileURL(s)
	case "tag_names":
		parts := strings.Split(s, ",")
		for i, t := range parts {
			parts[i] = p.text("tag", strings.TrimSpace(t))
		}
		return strings.Join(parts, ",")
	}
	return s
}

// fileURL replaces a temporary file address, a bearer secret for as long as
// it lives, by a stand-in that names no host and no token: the same address
// (whatever its query) always gets the same stand-in, so a replay still
// pairs the recorded download with the attachment answer that gave it.
func (p *pseudonymiser) fileURL(u string) string {
	if u == "" {
		return u
	}
	return "https://file.invalid/" + p.text("file", withoutQuery(u))
}
