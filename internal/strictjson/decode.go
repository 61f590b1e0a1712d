package strictjson

import (
	"encoding/json"
	"reflect"
	"strconv"
	"time"
	"unicode/utf8"
)

// Decode decodes the JSON document data into v, a non-nil pointer to a
// zero value, in one pass over the bytes, allocating little but what the
// result holds. When the document is one value (white space around it)
// that keeps the rule of [Check], v gets what a json.Decoder with
// DisallowUnknownFields would give it.
//
// It reports false, with v partly written, for any other document: one
// that is not valid JSON, breaks the rule, has a key no field takes, a
// value of the wrong JSON type or a null; and for a Go type it does not
// decode itself (an interface, an embedded struct, a fixed-size array, a
// ",string" field, a type with its own UnmarshalJSON or UnmarshalText but
// time.Time). The caller then decodes a fresh value with encoding/json
// and Check, which say what is wrong and where: Decode is the fast path of
// a valid document, and never an error message of its own.
func Decode(data []byte, v any) bool {
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Pointer || rv.IsNil() {
		return false
	}
	p := planOf(rv.Type().Elem())
	d := &decoder{data: data}
	if !d.value(p, rv.Elem()) {
		return false
	}
	d.skipSpace()
	return d.pos == len(d.data)
}

// decoder reads data from pos. interned holds the values of the enum
// types read so far, so that each is allocated once.
type decoder struct {
	data     []byte
	pos      int
	interned map[string]string
	scratch  map[*plan]reflect.Value // a slice type's scratch slice not in use
	depth    int                     // of the arrays and objects being read
}

// maxDepth is encoding/json's bound on nesting: a recursive type is not
// read deeper.
const maxDepth = 10000

func (d *decoder) skipSpace() {
	for d.pos < len(d.data) {
		switch d.data[d.pos] {
		case ' ', '\t', '\n', '\r':
			d.pos++
		default:
			return
		}
	}
}

// value decodes one value into v, as p says.
func (d *decoder) value(p *plan, v reflect.Value) bool {
	d.skipSpace()
	if d.pos >= len(d.data) {
		return false
	}
	c := d.data[d.pos]
	switch p.kind {
	case kString:
		if c != '"' {
			return false
		}
		s, ok := d.str(p.intern)
		v.SetString(s)
		return ok
	case kBool:
		return d.boolean(v)
	case kInt, kUint, kFloat:
		return d.number(p, v)
	case kTime:
		return d.time(v)
	case kBytes:
		return d.bytes(v)
	case kPointer:
		if c == 'n' {
			return false
		}
		e := reflect.New(p.elem.typ)
		v.Set(e)
		return d.value(p.elem, e.Elem())
	case kSlice, kMap, kStruct:
		d.depth++
		ok := d.depth <= maxDepth
		switch {
		case !ok:
		case p.kind == kSlice:
			ok = c == '[' && d.slice(p, v)
		case p.kind == kMap:
			ok = c == '{' && d.mapValue(p, v)
		default:
			ok = c == '{' && d.object(p, v)
		}
		d.depth--
		return ok
	}
	return false
}

// slice reads an array into a slice of its exact length: the elements
// are read into a scratch slice of the slice type, kept from one array
// to the next, then copied, so that many short arrays (a conversation's
// messages) cost one allocation each.
func (d *decoder) slice(p *plan, v reflect.Value) bool {
	d.pos++ // '['
	d.skipSpace()
	if d.pos < len(d.data) && d.data[d.pos] == ']' {
		d.pos++
		v.Set(reflect.MakeSlice(p.typ, 0, 0)) // [] is an empty slice, not nil
		return true
	}
	scratch, reused := d.scratch[p]
	if reused {
		delete(d.scratch, p) // in use: an array of the same type inside gets its own
	} else {
		scratch = reflect.New(p.typ).Elem()
	}
	n, ok := d.elements(p, scratch)
	if !ok {
		return false
	}
	if !reused && n > 64 {
		// A long array read first (the conversations of a company): its
		// scratch slice is the value, rather than a copy of it.
		v.Set(scratch)
		return true
	}
	out := reflect.MakeSlice(p.typ, n, n)
	reflect.Copy(out, scratch)
	v.Set(out)
	scratch.Clear() // the next array decodes into zero values, and the elements' memory is not kept
	scratch.SetLen(0)
	if d.scratch == nil {
		d.scratch = map[*plan]reflect.Value{}
	}
	d.scratch[p] = scratch
	return true
}

// elements reads the elements of an array, the '[' read, into scratch
// (empty), and returns their number.
func (d *decoder) elements(p *plan, scratch reflect.Value) (int, bool) {
	for n := 0; ; n++ {
		if scratch.Len() == scratch.Cap() {
			scratch.Grow(max(4, scratch.Cap()))
		}
		scratch.SetLen(n + 1)
		if !d.value(p.elem, scratch.Index(n)) {
			return 0, false
		}
		d.skipSpace()
		if d.pos >= len(d.data) {
			return 0, false
		}
		switch d.data[d.pos] {
		case ',':
			d.pos++
		case ']':
			d.pos++
			return n + 1, true
		default:
			return 0, false
		}
	}
}

// members reads the members of an object, calling member with each key
// (decoded) once the colon is read; it stops at the first false.
func (d *decoder) members(member func(key []byte) bool) bool {
	d.pos++ // '{'
	d.skipSpace()
	if d.pos < len(d.data) && d.data[d.pos] == '}' {
		d.pos++
		return true
	}
	for {
		d.skipSpace()
		if d.pos >= len(d.data) || d.data[d.pos] != '"' {
			return false
		}
		key, ok := d.key()
		if !ok {
			return false
		}
		d.skipSpace()
		if d.pos >= len(d.data) || d.data[d.pos] != ':' {
			return false
		}
		d.pos++
		if !member(key) {
			return false
		}
		d.skipSpace()
		if d.pos >= len(d.data) {
			return false
		}
		switch d.data[d.pos] {
		case ',':
			d.pos++
		case '}':
			d.pos++
			return true
		default:
			return false
		}
	}
}

func (d *decoder) object(p *plan, v reflect.Value) bool {
	var seen uint64
	return d.members(func(key []byte) bool {
		f, ok := p.fields[string(key)]
		if !ok || seen&(1<<f.bit) != 0 {
			return false // unknown, in another case, or twice
		}
		seen |= 1 << f.bit
		return d.value(f.plan, v.Field(f.index))
	})
}

func (d *decoder) mapValue(p *plan, v reflect.Value) bool {
	m := reflect.MakeMap(p.typ)
	v.Set(m)
	kt := p.typ.Key()
	return d.members(func(key []byte) bool {
		k := reflect.ValueOf(string(key)).Convert(kt)
		if m.MapIndex(k).IsValid() {
			return false // twice
		}
		e := reflect.New(p.elem.typ).Elem()
		if !d.value(p.elem, e) {
			return false
		}
		m.SetMapIndex(k, e)
		return true
	})
}

// key reads an object's key, decoded; the bytes are data's own unless
// the key has escapes.
func (d *decoder) key() ([]byte, bool) {
	start := d.pos
	plain, ok := d.skipString()
	if !ok {
		return nil, false
	}
	if plain {
		return d.data[start+1 : d.pos-1], true
	}
	var k string
	if json.Unmarshal(d.data[start:d.pos], &k) != nil {
		return nil, false
	}
	return []byte(k), true
}

// skipString moves past a string; plain reports that it holds only valid
// UTF-8 and no escape. A control character or the end of data is false.
func (d *decoder) skipString() (plain, ok bool) {
	plain = true
	ascii := true
	start := d.pos
	d.pos++ // '"'
	for d.pos < len(d.data) {
		// The run of plain ASCII first, one table look-up a byte.
		for d.pos < len(d.data) && plainASCII[d.data[d.pos]] {
			d.pos++
		}
		if d.pos >= len(d.data) {
			break
		}
		c := d.data[d.pos]
		switch {
		case c == '"':
			d.pos++
			if !ascii && plain {
				plain = utf8.Valid(d.data[start+1 : d.pos-1])
			}
			return plain, true
		case c == '\\':
			plain = false
			d.pos += 2
		case c < 0x20:
			return false, false
		default: // c >= 0x80
			ascii = false
			d.pos++
		}
	}
	return false, false
}

// plainASCII marks the bytes a string holds as they are: printable ASCII
// but the quote and the backslash.
var plainASCII = func() (t [256]bool) {
	for c := 0x20; c < 0x80; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// str reads a string value: shared with earlier equal ones when intern is
// set and it is short.
func (d *decoder) str(intern bool) (string, bool) {
	start := d.pos
	plain, ok := d.skipString()
	if !ok {
		return "", false
	}
	if !plain { // escapes or invalid UTF-8: as encoding/json decodes them
		var s string
		err := json.Unmarshal(d.data[start:d.pos], &s)
		return s, err == nil
	}
	raw := d.data[start+1 : d.pos-1]
	if !intern || len(raw) > 32 {
		return string(raw), true
	}
	if s, ok := d.interned[string(raw)]; ok {
		return s, true
	}
	if d.interned == nil {
		d.interned = map[string]string{}
	}
	s := string(raw)
	if len(d.interned) < 1024 {
		d.interned[s] = s
	}
	return s, true
}

func (d *decoder) boolean(v reflect.Value) bool {
	rest := d.data[d.pos:]
	switch {
	case len(rest) >= 4 && string(rest[:4]) == "true":
		v.SetBool(true)
		d.pos += 4
	case len(rest) >= 5 && string(rest[:5]) == "false":
		d.pos += 5
	default:
		return false
	}
	return d.pos == len(d.data) || delimiter(d.data[d.pos])
}

// delimiter reports a byte that may follow a literal or a number.
func delimiter(c byte) bool {
	switch c {
	case ',', '}', ']', ' ', '\t', '\n', '\r':
		return true
	}
	return false
}

// number reads a JSON number into an int, uint or float: a fraction or an
// exponent only into a float, as encoding/json.
func (d *decoder) number(p *plan, v reflect.Value) bool {
	start := d.pos
	integer, ok := d.skipNumber()
	if !ok {
		return false
	}
	s := string(d.data[start:d.pos])
	switch p.kind {
	case kInt:
		n, err := strconv.ParseInt(s, 10, p.bits)
		if !integer || err != nil {
			return false
		}
		v.SetInt(n)
	case kUint:
		n, err := strconv.ParseUint(s, 10, p.bits)
		if !integer || err != nil {
			return false
		}
		v.SetUint(n)
	default:
		f, err := strconv.ParseFloat(s, p.bits)
		if err != nil {
			return false
		}
		v.SetFloat(f)
	}
	return true
}

// skipNumber moves past a number of JSON's grammar; integer reports one
// without fraction or exponent.
func (d *decoder) skipNumber() (integer, ok bool) {
	digits := func() int {
		n := 0
		for d.pos < len(d.data) && d.data[d.pos] >= '0' && d.data[d.pos] <= '9' {
			d.pos++
			n++
		}
		return n
	}
	if d.pos < len(d.data) && d.data[d.pos] == '-' {
		d.pos++
	}
	first := d.pos
	if n := digits(); n == 0 || (n > 1 && d.data[first] == '0') {
		return false, false
	}
	integer = true
	if d.pos < len(d.data) && d.data[d.pos] == '.' {
		d.pos++
		if digits() == 0 {
			return false, false
		}
		integer = false
	}
	if d.pos < len(d.data) && (d.data[d.pos] == 'e' || d.data[d.pos] == 'E') {
		d.pos++
		if d.pos < len(d.data) && (d.data[d.pos] == '+' || d.data[d.pos] == '-') {
			d.pos++
		}
		if digits() == 0 {
			return false, false
		}
		integer = false
	}
	return integer, d.pos == len(d.data) || delimiter(d.data[d.pos])
}

// time reads a time.Time with its own UnmarshalJSON, as encoding/json.
func (d *decoder) time(v reflect.Value) bool {
	start := d.pos
	if d.data[d.pos] != '"' {
		return false
	}
	if _, ok := d.skipString(); !ok {
		return false
	}
	t := v.Addr().Interface().(*time.Time)
	return t.UnmarshalJSON(d.data[start:d.pos]) == nil
}

// bytes reads a []byte from a base64 string (standard encoding, padded),
// as encoding/json. Anything but the alphabet and padding is left to
// encoding/json.
func (d *decoder) bytes(v reflect.Value) bool {
	start := d.pos
	if d.data[d.pos] != '"' {
		return false
	}
	if plain, ok := d.skipString(); !plain || !ok {
		return false
	}
	raw := d.data[start+1 : d.pos-1]
	for _, c := range raw {
		if !(c == '+' || c == '/' || c == '=' || (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')) {
			return false
		}
	}
	var b []byte
	if err := json.Unmarshal(d.data[start:d.pos], &b); err != nil {
		return false
	}
	v.SetBytes(b)
	return true
}
