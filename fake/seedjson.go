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
	"strconv"
	"strings"
	"time"
)

// This file names the place of a seed document's decoding errors.

// decodeError turns an error of decoding a seed document into one that
// names the place: line and column for syntax; the JSON path for wrong
// types (with line and column), unknown fields and values a field cannot
// hold.
func decodeError(data []byte, err error) error {
	var syn *json.SyntaxError
	if errors.As(err, &syn) {
		line, col := position(data, syn.Offset)
		return fmt.Errorf("seed: line %d, column %d: %v", line, col, syn)
	}
	var v any
	if json.Unmarshal(data, &v) == nil {
		if path, msg := badValue(v, reflect.TypeFor[Seed](), ""); path != "" {
			// A value of the wrong JSON type is placed by its path, not by
			// the decoder's offset, which encoding/json and its v2 (under
			// GOEXPERIMENT=jsonv2) put at the value's end and start.
			if off, ok := valueOffset(data, path); ok && strings.HasPrefix(msg, "want ") {
				line, col := position(data, off)
				path = fmt.Sprintf("%s (line %d, column %d)", path, line, col)
			}
			return fmt.Errorf("seed: %s: %s", path, msg)
		}
	}
	return fmt.Errorf("seed: %w", err)
}

// zeroTime refuses a document that gives a time as the zero time
// (0001-01-01T00:00:00Z, however written): decoded, it is a time not
// given, which loads as now. Only a document holding such a date is read
// again, to name the place.
func zeroTime(data []byte) error {
	if !mayHoldZeroTime(data) {
		return nil
	}
	var v any
	if json.Unmarshal(data, &v) != nil {
		return nil // not valid JSON: the decoder said so already
	}
	if path, msg := badValue(v, reflect.TypeFor[Seed](), ""); path != "" {
		return fmt.Errorf("seed: %s: %s", path, msg)
	}
	return nil
}

// mayHoldZeroTime reports whether data holds "0001-01-01T or "0000-12-31T
// (the zero time at an offset east or west of UTC), in one pass over a
// document that may be a 23 MB state file: a search for each took twice
// as long.
func mayHoldZeroTime(data []byte) bool {
	for {
		i := bytes.Index(data, []byte(`"000`))
		if i < 0 {
			return false
		}
		data = data[i+len(`"000`):]
		if bytes.HasPrefix(data, []byte("1-01-01T")) || bytes.HasPrefix(data, []byte("0-12-31T")) {
			return true
		}
	}
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
// order) that the Go type t cannot take, and why: a value of the wrong JSON
// type, a field t does not have, a time that is not RFC 3339, bytes that
// are not base64; "" when there is none.
func badValue(v any, t reflect.Type, path string) (string, string) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if want, got := jsonKind(t), jsonKindOf(v); got != "null" && want != got {
		return path, fmt.Sprintf("want %s, got JSON %s", want, got)
	}
	switch x := v.(type) {
	case string:
		tm, err := time.Parse(time.RFC3339, x)
		if t == timeType && err != nil {
			return path, fmt.Sprintf("%q is not an RFC 3339 date-time (e.g. 2026-11-22T10:00:00Z)", x)
		}
		if t == timeType && tm.IsZero() {
			return path, fmt.Sprintf("%s is the zero time (January 1 of year 1, UTC), which loads as now; give a real date-time, or leave the field out for now", x)
		}
		if _, err := base64.StdEncoding.DecodeString(x); t == bytesType && err != nil {
			return path, "not base64"
		}
	case map[string]any:
		if t.Kind() == reflect.Map {
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
		for i, e := range x {
			if bad, msg := badValue(e, t.Elem(), fmt.Sprintf("%s[%d]", path, i)); bad != "" {
				return bad, msg
			}
		}
	}
	return "", ""
}

// jsonKind is the JSON type a value of Go type t is written as.
func jsonKind(t reflect.Type) string {
	switch {
	case t == timeType || t == bytesType || t.Kind() == reflect.String:
		return "string"
	case t.Kind() == reflect.Struct || t.Kind() == reflect.Map:
		return "object"
	case t.Kind() == reflect.Slice:
		return "array"
	case t.Kind() == reflect.Bool:
		return "bool"
	}
	return "number"
}

// jsonKindOf is the JSON type of a value decoded into an any.
func jsonKindOf(v any) string {
	if v == nil {
		return "null"
	}
	return jsonKind(reflect.TypeOf(v))
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

// valueOffset is the offset in data of the value at a JSON path such as
// companies[0].channels[1].channel.
func valueOffset(data []byte, path string) (int64, bool) {
	var segs []any
	for _, part := range strings.Split(path, ".") {
		name, rest, _ := strings.Cut(part, "[")
		if name != "" {
			segs = append(segs, name)
		}
		for rest != "" {
			idx, after, _ := strings.Cut(rest, "]")
			n, err := strconv.Atoi(idx)
			if err != nil {
				return 0, false
			}
			segs = append(segs, n)
			rest = strings.TrimPrefix(after, "[")
		}
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	off, ok := locate(dec, segs)
	for ok && off < int64(len(data)) && strings.IndexByte(" \t\r\n:,", data[off]) >= 0 {
		off++
	}
	return off, ok
}

// locate reads dec down segs (object keys and array indexes) and returns
// the offset where the value they name starts, give or take the
// separators before it.
func locate(dec *json.Decoder, segs []any) (int64, bool) {
	if len(segs) == 0 {
		return dec.InputOffset(), true
	}
	if _, err := dec.Token(); err != nil { // '{' or '['
		return 0, false
	}
	for i := 0; dec.More(); i++ {
		if key, isKey := segs[0].(string); isKey {
			tok, err := dec.Token()
			if err != nil {
				return 0, false
			}
			if tok == key {
				return locate(dec, segs[1:])
			}
		} else if i == segs[0] {
			return locate(dec, segs[1:])
		}
		if !skipValue(dec) {
			return 0, false
		}
	}
	return 0, false
}

// skipValue reads one whole value from dec.
func skipValue(dec *json.Decoder) bool {
	depth := 0
	for {
		tok, err := dec.Token()
		if err != nil {
			return false
		}
		switch tok {
		case json.Delim('{'), json.Delim('['):
			depth++
		case json.Delim('}'), json.Delim(']'):
			depth--
		}
		if depth == 0 {
			return true
		}
	}
}
