package strictjson

import (
	"reflect"
	"sync"
	"time"
)

// This file holds what Decode knows of each Go type: its plan.

// planKind is how a Go type is decoded.
type planKind uint8

const (
	kUnsupported planKind = iota
	kString
	kBool
	kInt
	kUint
	kFloat
	kTime
	kBytes
	kPointer
	kSlice
	kMap
	kStruct
)

// plan is what Decode needs of a Go type, computed once per type.
type plan struct {
	kind   planKind
	typ    reflect.Type
	bits   int  // the size of an int, uint or float
	intern bool // a named string type (an enum): its values are shared
	elem   *plan
	fields map[string]field // a struct's fields by JSON name
}

type field struct {
	index int // in the struct
	bit   int // in the set of the keys an object gave
	plan  *plan
}

var (
	plansMu   sync.Mutex
	plans     sync.Map // reflect.Type -> *plan
	timeType  = reflect.TypeFor[time.Time]()
	bytesType = reflect.TypeFor[[]byte]()
)

func planOf(t reflect.Type) *plan {
	if p, ok := plans.Load(t); ok {
		return p.(*plan)
	}
	plansMu.Lock()
	defer plansMu.Unlock()
	building := map[reflect.Type]*plan{}
	p := buildPlan(t, building)
	for t, p := range building {
		plans.Store(t, p)
	}
	return p
}

// buildPlan makes t's plan; building holds the plans under construction,
// so that a recursive type refers to its own.
func buildPlan(t reflect.Type, building map[reflect.Type]*plan) *plan {
	if p, ok := plans.Load(t); ok {
		return p.(*plan)
	}
	if p, ok := building[t]; ok {
		return p
	}
	p := &plan{typ: t}
	building[t] = p
	ptr := reflect.PointerTo(t)
	switch {
	case t == timeType:
		p.kind = kTime
	case t.Kind() != reflect.Pointer && (ptr.Implements(jsonUnmarshaler) || ptr.Implements(textUnmarshaler)):
		// decoded by its own method: left to encoding/json
	case t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.Uint8:
		if t == bytesType { // base64; a named byte type is left to encoding/json
			p.kind = kBytes
		}
	case t.Kind() == reflect.String:
		p.kind, p.intern = kString, t.Name() != "string"
	case t.Kind() == reflect.Bool:
		p.kind = kBool
	case t.Kind() >= reflect.Int && t.Kind() <= reflect.Int64:
		p.kind, p.bits = kInt, t.Bits()
	case t.Kind() >= reflect.Uint && t.Kind() <= reflect.Uint64:
		p.kind, p.bits = kUint, t.Bits()
	case t.Kind() == reflect.Float32 || t.Kind() == reflect.Float64:
		p.kind, p.bits = kFloat, t.Bits()
	case t.Kind() == reflect.Pointer:
		p.kind, p.elem = kPointer, buildPlan(t.Elem(), building)
	case t.Kind() == reflect.Slice:
		p.kind, p.elem = kSlice, buildPlan(t.Elem(), building)
	case t.Kind() == reflect.Map && t.Key().Kind() == reflect.String && !reflect.PointerTo(t.Key()).Implements(textUnmarshaler):
		p.kind, p.elem = kMap, buildPlan(t.Elem(), building)
	case t.Kind() == reflect.Struct:
		if fields, ok := structFields(t, building); ok {
			p.kind, p.fields = kStruct, fields
		}
	}
	return p
}

// structFields are the fields of t by their JSON names, as encoding/json
// names them; false for a struct Decode leaves to encoding/json.
func structFields(t reflect.Type, building map[reflect.Type]*plan) (map[string]field, bool) {
	fields := map[string]field{}
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		if f.Anonymous {
			return nil, false
		}
		if !f.IsExported() {
			continue
		}
		name, opts, _ := splitTag(tag)
		if opts == "string" || !validName(name) {
			return nil, false
		}
		if name == "" {
			name = f.Name
		}
		if _, taken := fields[name]; taken || len(fields) == 64 {
			return nil, false
		}
		fields[name] = field{index: i, bit: len(fields), plan: buildPlan(f.Type, building)}
	}
	return fields, true
}

// splitTag returns a json tag's name and, when one of its options is
// "string", "string".
func splitTag(tag string) (name, opts string, ok bool) {
	name, rest, ok := cutComma(tag)
	for ok {
		var opt string
		opt, rest, ok = cutComma(rest)
		if opt == "string" {
			return name, "string", true
		}
	}
	return name, "", true
}

func cutComma(s string) (before, after string, found bool) {
	for i := range len(s) {
		if s[i] == ',' {
			return s[:i], s[i+1:], true
		}
	}
	return s, "", false
}

// validName reports a tag name made of letters, digits, '_' and '-' only
// (encoding/json replaces some others by the field's name).
func validName(name string) bool {
	for _, c := range []byte(name) {
		ok := c == '_' || c == '-' || (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
		if !ok {
			return false
		}
	}
	return true
}
