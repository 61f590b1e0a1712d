// Package strictjson decodes the JSON that the fake and convofake read
// (API bodies, admin bodies, seed and state files) with one strictness
// rule on top of encoding/json's: an object never names a key twice, a key
// that a Go struct field takes is spelled exactly as the field's JSON
// name, and a key no field takes is refused.
//
// encoding/json alone would keep the last of two values given for one key
// ({"status": 503, "status": 500} is 500), and would match a struct's keys
// without regard to case ({"status": 503, "Status": 502} is 502), so the
// caller's mistake would pass silently.
//
// On Go 1.27 and later [Unmarshal] is encoding/json/v2, which keeps the
// rule itself. On Go 1.26 it is encoding/json followed by a one-pass key
// check of the bytes ([Check]), which goes when Go 1.26 leaves support.
// Both name the place of a breach alike, as an [*Error].
package strictjson

import (
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"
)

// Error is a breach of the rule at a place of the document.
type Error struct {
	// Path is the JSON path of the key: "status", "companies[0].api_key",
	// "custom_fields.plan"; an empty key is written "".
	Path string
	// Want is, for a key in another case than its field's, the field's
	// JSON name; "" for a key given twice.
	Want string
}

// Error says what is wrong, naming the place.
func (e *Error) Error() string {
	if e.Want != "" {
		return fmt.Sprintf("%s: keys are case-sensitive: write %q", e.Path, e.Want)
	}
	return e.Path + " is given more than once; give it once"
}

// ErrMoreThanOneValue is the error of [Unmarshal] for a document that holds
// a second JSON value after the first.
var ErrMoreThanOneValue = errors.New("more than one JSON value")

// pathBuilder renders a JSON path: keys joined by dots, array indexes in
// brackets ("items[1].name"); an empty key is written "" so that the path
// still names it.
type pathBuilder struct{ strings.Builder }

func (b *pathBuilder) key(k string) {
	if b.Len() > 0 {
		b.WriteByte('.')
	}
	if k == "" {
		k = `""`
	}
	b.WriteString(k)
}

func (b *pathBuilder) index(i int) {
	b.WriteByte('[')
	b.WriteString(strconv.Itoa(i))
	b.WriteByte(']')
}

// collectFields adds the JSON names of t's fields, those of its embedded
// structs included, as encoding/json names them.
func collectFields(t reflect.Type, out map[string]reflect.Type) {
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, _, _ := strings.Cut(tag, ",")
		ft := f.Type
		if f.Anonymous && name == "" {
			for ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Struct {
				collectFields(ft, out)
				continue
			}
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		if _, taken := out[name]; !taken {
			out[name] = f.Type
		}
	}
}
