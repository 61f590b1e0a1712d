package fake

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
	"time"
)

// This file names the place of a seed document's decoding errors.

// decodeError turns an error of decoding a seed document into one that
// names the place: line and column for syntax, the JSON path for wrong
// types, unknown fields and values a field cannot hold.
func decodeError(data []byte, err error) error {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn):
		line, col := position(data, syn.Offset)
		return fmt.Errorf("seed: line %d, column %d: %v", line, col, syn)
	case errors.As(err, &typ):
		line, col := position(data, typ.Offset)
		field := jsonPathAt(data, typ.Offset)
		if field == "" {
			field = typ.Field
		}
		want := typ.Type.String()
		if typ.Type.Kind() == reflect.String { // convo.Channel and the like are strings in JSON
			want = "string"
		}
		return fmt.Errorf("seed: %s (line %d, column %d): want %s, got JSON %s", field, line, col, want, typ.Value)
	}
	var v any
	if json.Unmarshal(data, &v) == nil {
		if path, msg := badValue(v, reflect.TypeFor[Seed](), ""); path != "" {
			return fmt.Errorf("seed: %s: %s", path, msg)
		}
	}
	return fmt.Errorf("seed: %w", err)
}

// atPath names the JSON path of a seeding error: path.field for an error
// about one field (companies[0].conversations[0].messages[0].sender: ...),
// else path itself.
func atPath(path string, err error) error {
	var fe *fieldError
	if errors.As(err, &fe) {
		return fmt.Errorf("%s.%s: %s", path, fe.field, fe.msg)
	}
	return fmt.Errorf("%s: %w", path, err)
}

var (
	timeType  = reflect.TypeFor[time.Time]()
	bytesType = reflect.TypeFor[[]byte]()
)

// badValue returns the JSON path of the first value of v (keys in sorted
// order) that the Go type t cannot take, and why: a field t does not have,
// a time that is not RFC 3339, bytes that are not base64; "" when there is
// none.
func badValue(v any, t reflect.Type, path string) (string, string) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch x := v.(type) {
	case string:
		if _, err := time.Parse(time.RFC3339, x); t == timeType && err != nil {
			return path, fmt.Sprintf("%q is not an RFC 3339 date-time (e.g. 2026-11-22T10:00:00Z)", x)
		}
		if _, err := base64.StdEncoding.DecodeString(x); t == bytesType && err != nil {
			return path, "not base64"
		}
	case map[string]any:
		if t.Kind() != reflect.Struct || t == timeType {
			return "", ""
		}
		fields := map[string]reflect.Type{}
		for i := range t.NumField() {
			name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
			fields[name] = t.Field(i).Type
		}
		for _, k := range slices.Sorted(maps.Keys(x)) {
			p := strings.TrimPrefix(path+"."+k, ".")
			ft, ok := fields[k]
			if !ok {
				return p, fmt.Sprintf("unknown field %q (SEED.md lists the fields)", k)
			}
			if bad, msg := badValue(x[k], ft, p); bad != "" {
				return bad, msg
			}
		}
	case []any:
		if t.Kind() != reflect.Slice {
			return "", ""
		}
		for i, e := range x {
			if bad, msg := badValue(e, t.Elem(), fmt.Sprintf("%s[%d]", path, i)); bad != "" {
				return bad, msg
			}
		}
	}
	return "", ""
}

// jsonPathAt returns the JSON path (companies[0].channels[1].channel) of
// the value of data that ends at offset (for a scalar) or opens there (for an
// object or array), as json.UnmarshalTypeError.Offset reports it; "" when
// there is none.
func jsonPathAt(data []byte, offset int64) string {
	type frame struct {
		array bool
		key   string // objects: the current key
		n     int    // arrays: the index of the current value
	}
	var stack []frame
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	expectKey := false
	for {
		tok, err := dec.Token()
		if err != nil {
			return ""
		}
		if d, ok := tok.(json.Delim); ok && (d == '}' || d == ']') {
			stack = stack[:len(stack)-1]
			expectKey = len(stack) > 0 && !stack[len(stack)-1].array
			continue
		}
		if expectKey {
			stack[len(stack)-1].key, expectKey = tok.(string), false
			continue
		}
		// tok starts a value: its path is the stack's.
		if len(stack) > 0 {
			if top := &stack[len(stack)-1]; top.array {
				top.n++
			} else {
				expectKey = true
			}
		}
		var b strings.Builder
		for i, f := range stack {
			switch {
			case f.array:
				fmt.Fprintf(&b, "[%d]", f.n)
			case i > 0:
				b.WriteString("." + f.key)
			default:
				b.WriteString(f.key)
			}
		}
		if dec.InputOffset() >= offset {
			return b.String()
		}
		if d, ok := tok.(json.Delim); ok {
			stack = append(stack, frame{array: d == '[', n: -1})
			expectKey = d == '{'
		}
	}
}

func position(data []byte, offset int64) (line, col int) {
	line, col = 1, 1
	for i := int64(0); i < offset && i < int64(len(data)); i++ {
		if data[i] == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
	}
	return line, col
}
