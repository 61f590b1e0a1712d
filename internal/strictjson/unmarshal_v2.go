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

// slices decodes the JSON arrays of one document into slices of exactly
// their length: each array's elements go into a scratch slice of its type,
// which grows as append grows it and is used again by the next array of
// that type, and are then copied once. encoding/json/v2 appends into the
// slice itself, and on a state file the doublings of 10,000 lists of 10
// messages alone made some 45 MB, which a new process faults in and clears
// before it can use them.
type slices struct {
	scratch map[reflect.Type]reflect.Value // a type's scratch slice not in use
}

func (s *slices) decode(dec *jsontext.Decoder, v any) error {
	p := reflect.ValueOf(v)
	if p.Kind() != reflect.Pointer || p.Elem().Kind() != reflect.Slice || dec.PeekKind() != '[' {
		return errors.ErrUnsupported
	}
	t := p.Elem().Type()
	if t.Elem().Kind() == reflect.Uint8 { // []byte is base64; json.RawMessage raw JSON
		return errors.ErrUnsupported
	}
	if _, err := dec.ReadToken(); err != nil {
		return err
	}
	scratch, ok := s.scratch[t]
	if ok {
		delete(s.scratch, t) // in use: an array of the same type inside gets its own
	} else {
		scratch = reflect.MakeSlice(t, 0, 0)
	}
	n := 0
	for dec.PeekKind() != ']' {
		if n == scratch.Len() {
			scratch = reflect.Append(scratch, reflect.Zero(t.Elem()))
			scratch = scratch.Slice(0, scratch.Cap())
		}
		if err := jsonv2.UnmarshalDecode(dec, scratch.Index(n).Addr().Interface()); err != nil {
			return err
		}
		n++
	}
	if _, err := dec.ReadToken(); err != nil {
		return err
	}
	out := reflect.MakeSlice(t, n, n)
	reflect.Copy(out, scratch)
	p.Elem().Set(out)
	scratch.Slice(0, n).Clear() // the next array decodes into zero values
	s.scratch[t] = scratch
	return nil
}

// Unmarshal decodes the one JSON value data (white space around it) into
// v, a non-nil pointer, as a json.Decoder with DisallowUnknownFields does,
// and refuses what the rule refuses. Its error is an [*Error] for a breach
// of the rule in a document that is valid JSON, [ErrMoreThanOneValue] for
// a second value, and encoding/json's error otherwise
// (*json.SyntaxError, *json.UnmarshalTypeError, an unknown field), so that
// callers describe faults alike on every Go version. On an error v is
// partly written.
//
// This is the Go 1.27 build: encoding/json/v2 decodes and keeps the rule
// in one pass; only a document it refuses is read again, to say why.
func Unmarshal(data []byte, v any) error {
	s := &slices{scratch: map[reflect.Type]reflect.Value{}}
	err := jsonv2.Unmarshal(data, v, options, jsonv2.WithUnmarshalers(jsonv2.UnmarshalFromFunc(s.decode)))
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
