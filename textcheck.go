package convo

import (
	"bytes"
	"errors"
	"fmt"
	"net/url"
	"reflect"
	"strings"
	"unicode/utf8"
)

// ErrInvalidText reports a string the SDK will not send: invalid UTF-8, or a
// NUL character. JSON would silently turn invalid bytes into U+FFFD (two
// different names could then become one on the service) and a NUL is never
// meant; the call fails before any request.
var ErrInvalidText = errors.New("convo: invalid UTF-8 or NUL character")

// InvalidTextError names where the text was found; errors.Is(err,
// ErrInvalidText) holds.
type InvalidTextError struct {
	// Where is "path", "query parameter <name>" or "body" (with the field's path
	// when it could be found, such as "body field custom_fields[Plan]").
	Where string
	// Reason is "invalid UTF-8" or "NUL character".
	Reason string
}

// Error names the place and the reason, never the value (it may be personal
// data).
func (e *InvalidTextError) Error() string {
	return e.Where + ": " + e.Reason + " (invalid UTF-8 or NUL character)"
}

// Unwrap returns ErrInvalidText.
func (e *InvalidTextError) Unwrap() error { return ErrInvalidText }

// checkPathText refuses a path whose segments, once unescaped, are not valid
// UTF-8 or hold a NUL (an identifier read from a broken file, say).
func checkPathText(path string) error {
	if !strings.Contains(path, "%") && utf8.ValidString(path) && strings.IndexByte(path, 0) < 0 {
		return nil
	}
	raw, err := url.PathUnescape(path)
	if err != nil {
		raw = path
	}
	if r := textProblem(raw); r != "" {
		return &InvalidTextError{Where: "path", Reason: r}
	}
	return nil
}

// checkQueryText refuses a query value (or name) that is not valid UTF-8 or
// holds a NUL.
func checkQueryText(q url.Values) error {
	for k, vs := range q {
		if r := textProblem(k); r != "" {
			return &InvalidTextError{Where: "query parameter name", Reason: r}
		}
		for _, v := range vs {
			if r := textProblem(v); r != "" {
				return &InvalidTextError{Where: "query parameter " + k, Reason: r}
			}
		}
	}
	return nil
}

func textProblem(s string) string {
	switch {
	case !utf8.ValidString(s):
		return "invalid UTF-8"
	case strings.IndexByte(s, 0) >= 0:
		return "NUL character"
	}
	return ""
}

// checkBodyText inspects the encoded body: json.Marshal writes a NUL as
// \u0000 and an invalid byte as \ufffd (a real U+FFFD stays raw UTF-8), so
// the common case costs one scan. Only when \ufffd shows up is the value
// walked, to tell an invalid byte from an escape written by hand in a
// json.RawMessage.
func checkBodyText(payload []byte, body any) error {
	if bytes.Contains(payload, []byte(`\u0000`)) {
		where := findText(reflect.ValueOf(body), "body", "NUL character")
		return &InvalidTextError{Where: where, Reason: "NUL character"}
	}
	// encoding/json writes invalid UTF-8 as the escape \ufffd; built with
	// GOEXPERIMENT=jsonv2, as the character U+FFFD itself.
	if bytes.Contains(payload, []byte(`\ufffd`)) || bytes.Contains(payload, []byte("\uFFFD")) {
		if where := findText(reflect.ValueOf(body), "body", "invalid UTF-8"); where != "" && where != "body" || hasInvalid(reflect.ValueOf(body), 0) {
			return &InvalidTextError{Where: where, Reason: "invalid UTF-8"}
		}
	}
	return nil
}

// findText returns the path of the first string of v with the given problem,
// or at (the root's name) when none is found by walking.
func findText(v reflect.Value, at, reason string) string {
	if p, ok := walkText(v, at, reason, 0); ok {
		return p
	}
	return at
}

func hasInvalid(v reflect.Value, depth int) bool {
	_, ok := walkText(v, "", "invalid UTF-8", depth)
	return ok
}

// walkText looks for a string with the problem through pointers, interfaces,
// structs (exported fields, by their JSON names), maps and slices. Depth is
// bounded so that a cyclic value cannot loop (json.Marshal refuses those
// anyway).
func walkText(v reflect.Value, at, reason string, depth int) (string, bool) {
	if depth > 32 || !v.IsValid() {
		return "", false
	}
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			return "", false
		}
		return walkText(v.Elem(), at, reason, depth+1)
	case reflect.String:
		if textProblem(v.String()) == reason {
			return at, true
		}
	case reflect.Struct:
		return walkStruct(v, at, reason, depth)
	case reflect.Map:
		return walkMap(v, at, reason, depth)
	case reflect.Slice, reflect.Array:
		if v.Kind() == reflect.Slice && v.Type().Elem().Kind() == reflect.Uint8 {
			return "", false // bytes (a json.RawMessage): not a Go string
		}
		for i := range v.Len() {
			if p, ok := walkText(v.Index(i), fmt.Sprintf("%s[%d]", at, i), reason, depth+1); ok {
				return p, true
			}
		}
	}
	return "", false
}

// walkStruct is walkText over a struct's exported fields, by JSON name.
func walkStruct(v reflect.Value, at, reason string, depth int) (string, bool) {
	t := v.Type()
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if !f.IsExported() || name == "-" {
			continue
		}
		if name == "" {
			name = f.Name
		}
		if p, ok := walkText(v.Field(i), at+" field "+name, reason, depth+1); ok {
			return p, true
		}
	}
	return "", false
}

// walkMap is walkText over a map's keys and values.
func walkMap(v reflect.Value, at, reason string, depth int) (string, bool) {
	iter := v.MapRange()
	for iter.Next() {
		k := iter.Key()
		if k.Kind() == reflect.String && textProblem(k.String()) == reason {
			return at + " key", true
		}
		if p, ok := walkText(iter.Value(), fmt.Sprintf("%s[%v]", at, safeKey(k)), reason, depth+1); ok {
			return p, true
		}
	}
	return "", false
}

// safeKey prints a map key only when it is clean text.
func safeKey(k reflect.Value) any {
	if k.Kind() == reflect.String && textProblem(k.String()) != "" {
		return "?"
	}
	return k.Interface()
}
