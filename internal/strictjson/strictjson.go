// Package strictjson holds the one strictness rule of the JSON that the
// fake and convofake read (API bodies, admin bodies, seed and state files):
// an object never names a key twice, and a key that a Go struct field
// takes is spelled exactly as the field's JSON name.
//
// encoding/json alone would keep the last of two values given for one key
// ({"status": 503, "status": 500} is 500), and would match a struct's keys
// without regard to case ({"status": 503, "Status": 502} is 502), so the
// caller's mistake would pass silently.
//
// Check finds a breach of the rule; Decode decodes a document that keeps
// it, and has no other fault, in one pass over its bytes.
package strictjson

import (
	"encoding"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"sync"
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
//
// It scans the bytes once after json.Valid, allocating only for the keys it
// must remember, and builds the path of the place only for an error.
func Check(data []byte, t reflect.Type) error {
	if !json.Valid(data) {
		return nil
	}
	return CheckValid(data, t)
}

// CheckValid is Check for data already known to be one valid JSON value
// (a decoder read it whole without error): it skips the validation pass.
// On data that is not valid JSON its result is undefined, and it may panic.
func CheckValid(data []byte, t reflect.Type) error {
	w := &walker{data: data}
	return w.value(t)
}

var (
	textUnmarshaler = reflect.TypeFor[encoding.TextUnmarshaler]()
	jsonUnmarshaler = reflect.TypeFor[json.Unmarshaler]()
	rawMessage      = reflect.TypeFor[json.RawMessage]()
)

// walker scans a valid JSON document. path is the place of the value being
// read, as segments (a key, or an array index when isIndex).
type walker struct {
	data []byte
	pos  int
	path []segment
}

type segment struct {
	key     string
	index   int
	isIndex bool
}

// place renders the path with key last: "items[1].name".
func (w *walker) place(key string) string {
	var b strings.Builder
	for _, s := range w.path {
		if s.isIndex {
			fmt.Fprintf(&b, "[%d]", s.index)
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		b.WriteString(s.key)
	}
	if b.Len() > 0 {
		b.WriteByte('.')
	}
	b.WriteString(key)
	return b.String()
}

// typeInfo is what the walk needs of a Go type, computed once per type.
type typeInfo struct {
	object  bool                    // a struct: keys are checked against fields
	fields  map[string]reflect.Type // JSON name -> field type
	folded  map[string]string       // lower-case name -> JSON name
	mapElem reflect.Type            // a map's value type
	arrElem reflect.Type            // a slice's or array's element type
}

var typeInfos sync.Map // reflect.Type -> *typeInfo

// resolve strips pointers and returns nil for a type that reads its own
// JSON (keys given twice are then the only rule), as t's info otherwise.
func resolve(t reflect.Type) *typeInfo {
	if t == nil {
		return nil
	}
	if ti, ok := typeInfos.Load(t); ok {
		return ti.(*typeInfo)
	}
	orig := t
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	ti := &typeInfo{}
	switch {
	case t == rawMessage:
	case reflect.PointerTo(t).Implements(jsonUnmarshaler) || reflect.PointerTo(t).Implements(textUnmarshaler):
		ti = nil
	case t.Kind() == reflect.Struct:
		ti.object, ti.fields, ti.folded = true, map[string]reflect.Type{}, map[string]string{}
		collectFields(t, ti.fields)
		for name := range ti.fields {
			ti.folded[strings.ToLower(name)] = name
		}
	case t.Kind() == reflect.Map:
		ti.mapElem = t.Elem()
	case t.Kind() == reflect.Slice || t.Kind() == reflect.Array:
		ti.arrElem = t.Elem()
	}
	typeInfos.Store(orig, ti)
	return ti
}

func (w *walker) skipSpace() {
	for w.pos < len(w.data) {
		switch w.data[w.pos] {
		case ' ', '\t', '\n', '\r':
			w.pos++
		default:
			return
		}
	}
}

// value reads one value, checking the objects in it against t (nil: any
// value, where only keys given twice are looked for).
func (w *walker) value(t reflect.Type) error {
	w.skipSpace()
	switch w.data[w.pos] {
	case '{':
		return w.object(resolve(t))
	case '[':
		var elem reflect.Type
		if ti := resolve(t); ti != nil {
			elem = ti.arrElem
		}
		return w.array(elem)
	case '"':
		w.skipString()
	default: // a number, true, false or null
		for w.pos < len(w.data) {
			switch w.data[w.pos] {
			case ',', '}', ']', ' ', '\t', '\n', '\r':
				return nil
			}
			w.pos++
		}
	}
	return nil
}

func (w *walker) array(elem reflect.Type) error {
	w.pos++ // '['
	w.path = append(w.path, segment{isIndex: true})
	defer func() { w.path = w.path[:len(w.path)-1] }()
	for i := 0; ; i++ {
		w.skipSpace()
		if w.data[w.pos] == ']' {
			w.pos++
			return nil
		}
		w.path[len(w.path)-1].index = i
		if err := w.value(elem); err != nil {
			return err
		}
		w.skipSpace()
		if w.data[w.pos] == ',' {
			w.pos++
		}
	}
}

func (w *walker) object(ti *typeInfo) error {
	w.pos++           // '{'
	var seen []string // few keys per object: a slice beats a map
	var seenSet map[string]bool
	for {
		w.skipSpace()
		if w.data[w.pos] == '}' {
			w.pos++
			return nil
		}
		k := w.key()
		if seenSet != nil {
			if seenSet[k] {
				return &Error{Path: w.place(k)}
			}
			seenSet[k] = true
		} else {
			for _, s := range seen {
				if s == k {
					return &Error{Path: w.place(k)}
				}
			}
			if seen = append(seen, k); len(seen) > 16 {
				seenSet = make(map[string]bool, 2*len(seen))
				for _, s := range seen {
					seenSet[s] = true
				}
			}
		}
		var next reflect.Type
		if ti != nil {
			if ti.object {
				ft, exact := ti.fields[k]
				if want, ok := ti.folded[strings.ToLower(k)]; !exact && ok {
					return &Error{Path: w.place(k), Want: want}
				}
				next = ft
			} else {
				next = ti.mapElem
			}
		}
		w.skipSpace()
		w.pos++ // ':'
		w.path = append(w.path, segment{key: k})
		err := w.value(next)
		w.path = w.path[:len(w.path)-1]
		if err != nil {
			return err
		}
		w.skipSpace()
		if w.data[w.pos] == ',' {
			w.pos++
		}
	}
}

// key reads an object's key, decoded as encoding/json decodes it (escapes,
// and invalid UTF-8 replaced): plain ASCII without escapes as is.
func (w *walker) key() string {
	start := w.pos
	plain := w.skipString()
	raw := w.data[start:w.pos]
	if plain {
		return string(raw[1 : len(raw)-1])
	}
	var k string
	_ = json.Unmarshal(raw, &k)
	return k
}

// skipString moves past a string; plain reports that it holds only ASCII
// and no escape.
func (w *walker) skipString() (plain bool) {
	plain = true
	w.pos++ // '"'
	for {
		c := w.data[w.pos]
		switch {
		case c == '"':
			w.pos++
			return plain
		case c == '\\':
			plain = false
			w.pos += 2
		case c >= 0x80:
			plain = false
			w.pos++
		default:
			w.pos++
		}
	}
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
