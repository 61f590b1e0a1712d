// Package strictjson holds the one strictness rule of the JSON that the
// fake and convofake read (API bodies, admin bodies, seed and state files):
// an object never names a key twice, and a key that a Go struct field
// takes is spelled exactly as the field's JSON name.
//
// encoding/json alone would keep the last of two values given for one key
// ({"status": 503, "status": 500} is 500), and would match a struct's keys
// without regard to case ({"status": 503, "Status": 502} is 502), so the
// caller's mistake would pass silently.
package strictjson

import (
	"bytes"
	"encoding"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
)

// Error is a breach of the rule at a place of the document.
type Error struct {
	// Path is the JSON path of the key: "status", "companies[0].api_key",
	// "custom_fields.plan".
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

// Check reads the JSON document data against t, the Go type it decodes
// into (any, a map, a struct...), and returns the first *Error: a key given
// twice in one object (keys compared as decoded: "n\u0061me" is "name"), or
// a key of a struct's object that matches a field's JSON name only without
// regard to case. Keys no field takes are left to the decoder
// (DisallowUnknownFields). A document that is not valid JSON is left to the
// decoder too: Check returns nil for it.
func Check(data []byte, t reflect.Type) error {
	if !json.Valid(data) {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	return walk(dec, t, "")
}

var (
	textUnmarshaler = reflect.TypeFor[encoding.TextUnmarshaler]()
	jsonUnmarshaler = reflect.TypeFor[json.Unmarshaler]()
	rawMessage      = reflect.TypeFor[json.RawMessage]()
)

// walk reads one value from dec, checking the objects in it against t (nil:
// any value, where only keys given twice are looked for).
func walk(dec *json.Decoder, t reflect.Type, at string) error {
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t != nil && t != rawMessage && (reflect.PointerTo(t).Implements(jsonUnmarshaler) || reflect.PointerTo(t).Implements(textUnmarshaler)) {
		t = nil // a type that reads its own JSON: keys given twice only
	}
	tok, err := dec.Token()
	if err != nil {
		return nil // not JSON: the decoder's to explain
	}
	switch tok {
	case json.Delim('{'):
		return walkObject(dec, t, at)
	case json.Delim('['):
		var elem reflect.Type
		if t != nil && (t.Kind() == reflect.Slice || t.Kind() == reflect.Array) && t != rawMessage {
			elem = t.Elem()
		}
		for i := 0; dec.More(); i++ {
			if err := walk(dec, elem, fmt.Sprintf("%s[%d]", at, i)); err != nil {
				return err
			}
		}
		_, _ = dec.Token() // ']'
	}
	return nil
}

func walkObject(dec *json.Decoder, t reflect.Type, at string) error {
	var fields map[string]reflect.Type
	var folded map[string]string // lower-case name -> name, of the fields
	var elem reflect.Type
	switch {
	case t == nil || t == rawMessage:
	case t.Kind() == reflect.Struct:
		fields, folded = map[string]reflect.Type{}, map[string]string{}
		collectFields(t, fields)
		for name := range fields {
			folded[strings.ToLower(name)] = name
		}
	case t.Kind() == reflect.Map:
		elem = t.Elem()
	}
	seen := map[string]bool{}
	for dec.More() {
		kt, err := dec.Token()
		if err != nil {
			return nil
		}
		k, _ := kt.(string)
		place := k
		if at != "" {
			place = at + "." + k
		}
		if seen[k] {
			return &Error{Path: place}
		}
		seen[k] = true
		next := elem
		if fields != nil {
			ft, exact := fields[k]
			if want, ok := folded[strings.ToLower(k)]; !exact && ok {
				return &Error{Path: place, Want: want}
			}
			next = ft
		}
		if err := walk(dec, next, place); err != nil {
			return err
		}
	}
	_, _ = dec.Token() // '}'
	return nil
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
