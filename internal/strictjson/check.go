//go:build !go1.27 || !goexperiment.jsonv2

package strictjson

import (
	"bytes"
	"encoding"
	"encoding/json"
	"io"
	"reflect"
	"strings"
	"sync"
)

// Unmarshal decodes the one JSON value data (white space around it) into
// v, a non-nil pointer, as a json.Decoder with DisallowUnknownFields does,
// and refuses what the rule refuses. Its error is an [*Error] for a breach
// of the rule (reported before any other fault of a document that is valid
// JSON), [ErrMoreThanOneValue] for a second value, and encoding/json's
// error otherwise (*json.SyntaxError, *json.UnmarshalTypeError, an unknown
// field). On an error v is partly written. exact is taken for the Go 1.27
// build's sake ([ExactSlices]) and not used: encoding/json has no place to
// decode a slice's elements.
//
// This is the Go 1.26 build. A valid document takes json.Unmarshal and one
// pass of the key check, run side by side; the check also notes keys no
// field takes, which json.Unmarshal would drop. Only a document either
// finds fault with is read again, by a json.Decoder with
// DisallowUnknownFields, for the error.
func Unmarshal(data []byte, v any, exact ...Slices) error {
	checked := make(chan bool, 1)
	go func() {
		// Run on valid JSON only: the walk assumes it.
		if !json.Valid(data) {
			checked <- false
			return
		}
		w := &walker{data: data}
		checked <- w.value(reflect.TypeOf(v)) == nil && !w.unknown
	}()
	err := json.Unmarshal(data, v)
	if clean := <-checked; clean && err == nil {
		return nil
	}
	if rv := reflect.ValueOf(v); rv.Kind() == reflect.Pointer && !rv.IsNil() {
		rv.Elem().SetZero()
	}
	return diagnose(data, v)
}

// Slices names element types for [Unmarshal]; on Go 1.26 it carries
// nothing (see the Go 1.27 build).
type Slices struct{}

// ExactSlices is, on Go 1.27, an option of [Unmarshal] that decodes JSON
// arrays into []E slices of exactly their length, to spare a big document
// the doublings of append; on Go 1.26, which cannot, it does nothing.
func ExactSlices[E any]() Slices { return Slices{} }

// diagnose decodes a document with a fault for the error to report: the
// rule's, before any other of a document that is valid JSON.
func diagnose(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		if rule := Check(data, reflect.TypeOf(v)); rule != nil {
			return rule
		}
		return err
	}
	if _, err := dec.Token(); err != io.EOF {
		return ErrMoreThanOneValue
	}
	return CheckValid(data, reflect.TypeOf(v))
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
	data    []byte
	pos     int
	path    []segment
	unknown bool // a struct's object has a key no field takes
}

type segment struct {
	key     string
	index   int
	isIndex bool
}

// place renders the path with key last: "items[1].name".
func (w *walker) place(key string) string {
	var b pathBuilder
	for _, s := range w.path {
		if s.isIndex {
			b.index(s.index)
			continue
		}
		b.key(s.key)
	}
	b.key(key)
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
				if !exact {
					if want, ok := ti.folded[strings.ToLower(k)]; ok {
						return &Error{Path: w.place(k), Want: want}
					}
					w.unknown = true
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
