//go:build go1.27 && goexperiment.jsonv2

package strictjson

import (
	"bytes"
	"encoding/json"
	"encoding/json/jsontext"
	jsonv2 "encoding/json/v2"
	"errors"
	"io"
	"reflect"
	"strconv"
	"strings"
)

// options are the rule in encoding/json/v2's terms: keys given twice are
// refused and keys matched case-sensitively by default, unknown members
// refused by RejectUnknownMembers. Invalid UTF-8 is taken, as
// encoding/json takes it (replaced by U+FFFD), so that the two builds
// accept the same documents.
var options = jsonv2.JoinOptions(jsonv2.RejectUnknownMembers(true), jsontext.AllowInvalidUTF8(true))

// Slices names the element types whose JSON arrays [Unmarshal] decodes
// into slices of exactly their length ([ExactSlices]).
type Slices struct {
	// unmarshalers makes the decoding functions of one Unmarshal call, so
	// that concurrent calls do not share a scratch slice.
	unmarshalers func() *jsonv2.Unmarshalers
}

// ExactSlices has Unmarshal decode every JSON array that goes into a []E
// into a slice of exactly its length. encoding/json/v2 appends into the
// slice itself: on a state file the doublings of 10,000 lists of 10
// messages made some 45 MB, which a new process faults in and clears
// before it can use them. Here each array's elements go into scratch
// chunks, which the next array of that type uses again, and are then
// copied once. Chunks, not one slice that append grows: each doubling
// would copy the elements so far into new memory, and the 10,000
// conversations of a company took three times their size that way. A
// short array's slice is cut from a larger block (slab), as the 10,000
// lists of 10 messages are: allocated one by one, each took a size class
// a sixth larger than itself and a header to set.
//
// The types are named, not found by reflection: a decoding function for
// every type (any) is called for every value of the document, and that
// call alone, which boxes each value's address, took a sixth of the time
// of a state file's decode.
func ExactSlices[E any]() Slices {
	return Slices{unmarshalers: func() *jsonv2.Unmarshalers {
		var scratch [][]E // not in use while busy
		var slab slab[E]
		busy := false
		return jsonv2.UnmarshalFromFunc(func(dec *jsontext.Decoder, p *[]E) error {
			if dec.PeekKind() != '[' {
				return errors.ErrUnsupported // null, or a value of another type: as encoding/json/v2 decodes it
			}
			nested := busy // an array of the same type inside one gets its own scratch
			busy = true
			defer func() { busy = nested }()
			chunks := scratch
			if nested {
				chunks = nil
			}
			if _, err := dec.ReadToken(); err != nil {
				return err
			}
			n, c, i := 0, 0, 0 // n elements so far; the next goes to chunks[c][i]
			for dec.PeekKind() != ']' {
				if c == len(chunks) {
					chunks = append(chunks, make([]E, chunkSize(c)))
				}
				if err := jsonv2.UnmarshalDecode(dec, &chunks[c][i]); err != nil {
					return err
				}
				n, i = n+1, i+1
				if i == len(chunks[c]) {
					c, i = c+1, 0
				}
			}
			if _, err := dec.ReadToken(); err != nil {
				return err
			}
			out := slab.take(n)
			if out == nil {
				out = make([]E, 0, n)
			}
			for _, chunk := range chunks {
				if len(out) == n {
					break
				}
				used := chunk[:min(len(chunk), n-len(out))]
				out = append(out, used...)
				clear(used) // the next array decodes into zero values
			}
			*p = out
			if !nested {
				scratch = chunks
			}
			return nil
		})
	}}
}

// slab hands out slices of a block, for short arrays: each of exactly its
// length and capacity, so that appending to one copies it rather than
// writing over the next. A block is held as long as one of its slices is.
type slab[E any] struct{ block []E }

// slabMax is the longest array cut from a slab, and slabBlock the most
// elements of a block: 4,096 messages are under a megabyte. Blocks start
// at 64 elements and double, so that a small document takes little.
const (
	slabMax   = 64
	slabBlock = 4096
)

// take returns an empty slice of capacity n cut from the block (a new
// block when it has no room); nil when n is 0 (make takes no memory for
// it) or too large for a slab.
func (s *slab[E]) take(n int) []E {
	if n == 0 || n > slabMax {
		return nil
	}
	used := len(s.block)
	if used+n > cap(s.block) {
		s.block = make([]E, 0, min(max(2*cap(s.block), slabMax), slabBlock))
		used = 0
	}
	s.block = s.block[:used+n]
	return s.block[used : used : used+n]
}

// chunkSize is the number of elements of the c-th scratch chunk: 16 for
// the first (most arrays are short: a conversation's messages), twice the
// one before for each next, up to 4,096.
func chunkSize(c int) int { return 16 << min(c, 8) }

// Unmarshal decodes the one JSON value data (white space around it) into
// v, a non-nil pointer, as a json.Decoder with DisallowUnknownFields does,
// and refuses what the rule refuses. Its error is an [*Error] for a breach
// of the rule in a document that is valid JSON, [ErrMoreThanOneValue] for
// a second value, and encoding/json's error otherwise
// (*json.SyntaxError, *json.UnmarshalTypeError, an unknown field), so that
// callers describe faults alike on every Go version. On an error v is
// partly written. Arrays into the slice types of exact are decoded into
// slices of their length ([ExactSlices]).
//
// This is the Go 1.27 build: encoding/json/v2 decodes and keeps the rule
// in one pass; only a document it refuses is read again, to say why.
func Unmarshal(data []byte, v any, exact ...Slices) error {
	opts := options
	if len(exact) > 0 {
		fns := make([]*jsonv2.Unmarshalers, len(exact))
		for i, e := range exact {
			fns[i] = e.unmarshalers()
		}
		opts = jsonv2.JoinOptions(options, jsonv2.WithUnmarshalers(jsonv2.JoinUnmarshalers(fns...)))
	}
	err := jsonv2.Unmarshal(data, v, opts)
	if err == nil {
		return nil
	}
	if rule := ruleError(data, reflect.TypeOf(v), err); rule != nil {
		return rule
	}
	return diagnose(data, v, err)
}

// ruleError turns encoding/json/v2's refusal of a key given twice, or of
// an unknown key that a field takes in another case, into an *Error naming
// its place; nil for any other error, or for a document that is not valid
// JSON (its syntax is then the fault to report, as on Go 1.26).
func ruleError(data []byte, t reflect.Type, err error) *Error {
	var syn *jsontext.SyntacticError
	if errors.As(err, &syn) && errors.Is(err, jsontext.ErrDuplicateName) && valid(data) {
		return &Error{Path: pathOf(data, syn.JSONPointer)}
	}
	var sem *jsonv2.SemanticError
	if errors.As(err, &sem) && errors.Is(err, jsonv2.ErrUnknownName) {
		if want := caseOf(sem.GoType, sem.JSONPointer.LastToken()); want != "" && valid(data) {
			return &Error{Path: pathOf(data, sem.JSONPointer), Want: want}
		}
	}
	return nil
}

// valid reports whether data is one JSON value, keys given twice allowed.
func valid(data []byte) bool {
	return jsontext.Value(bytes.Trim(data, " \t\r\n")).IsValid(jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))
}

// pathOf renders a JSON pointer into data as a path ("items[1].name"),
// reading data up to the pointer to tell an array's index from an
// object's key that is a number.
func pathOf(data []byte, ptr jsontext.Pointer) string {
	dec := jsontext.NewDecoder(bytes.NewReader(data), jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))
	for dec.StackPointer() != ptr {
		if _, err := dec.ReadToken(); err != nil {
			break
		}
	}
	var b pathBuilder
	level := 0
	for tok := range ptr.Tokens() {
		level++
		kind := jsontext.Kind('{')
		if level <= dec.StackDepth() {
			kind, _ = dec.StackIndex(level)
		}
		if n, err := strconv.Atoi(tok); err == nil && kind == '[' {
			b.index(n)
			continue
		}
		b.key(tok)
	}
	return b.String()
}

// diagnose reads a document that encoding/json/v2 refused again with
// encoding/json, into a zeroed v, for the error that the callers describe
// (with its offset and field). A document encoding/json takes, which
// encoding/json/v2 does not, gets v2's error.
func diagnose(data []byte, v any, v2err error) error {
	if rv := reflect.ValueOf(v); rv.Kind() == reflect.Pointer && !rv.IsNil() {
		rv.Elem().SetZero()
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if _, err := dec.Token(); err != io.EOF {
		return ErrMoreThanOneValue
	}
	return v2err
}

// fieldNames returns the JSON names of t's fields, those of its embedded
// structs included, as encoding/json names them, with each field's type.
func fieldNames(t reflect.Type) map[string]reflect.Type {
	out := map[string]reflect.Type{}
	collectFields(t, out)
	return out
}

// caseOf returns the JSON name of a field of struct type t that key
// matches only without regard to case, "" when there is none.
func caseOf(t reflect.Type, key string) string {
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == nil || t.Kind() != reflect.Struct {
		return ""
	}
	names := fieldNames(t)
	if _, exact := names[key]; exact {
		return ""
	}
	for name := range names {
		if strings.EqualFold(name, key) {
			return name
		}
	}
	return ""
}
