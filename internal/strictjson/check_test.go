//go:build !go1.27 || !goexperiment.jsonv2

package strictjson

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// checkByTokens is the rule as first written, over encoding/json's token
// stream: the reference the byte scanner of Check must agree with.
func checkByTokens(data []byte, t reflect.Type) error {
	if !json.Valid(data) {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	return walkTokens(dec, t, "")
}

func walkTokens(dec *json.Decoder, t reflect.Type, at string) error {
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t != nil && t != rawMessage && (reflect.PointerTo(t).Implements(jsonUnmarshaler) || reflect.PointerTo(t).Implements(textUnmarshaler)) {
		t = nil
	}
	tok, err := dec.Token()
	if err != nil {
		return nil
	}
	switch tok {
	case json.Delim('{'):
		var fields map[string]reflect.Type
		var folded map[string]string
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
			kt, _ := dec.Token()
			k, _ := kt.(string)
			place := k
			if k == "" {
				place = `""` // an empty key is named too
			}
			if at != "" {
				place = at + "." + place
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
			if err := walkTokens(dec, next, place); err != nil {
				return err
			}
		}
		_, _ = dec.Token()
	case json.Delim('['):
		var elem reflect.Type
		if t != nil && (t.Kind() == reflect.Slice || t.Kind() == reflect.Array) && t != rawMessage {
			elem = t.Elem()
		}
		for i := 0; dec.More(); i++ {
			if err := walkTokens(dec, elem, fmt.Sprintf("%s[%d]", at, i)); err != nil {
				return err
			}
		}
		_, _ = dec.Token()
	}
	return nil
}

// randomDoc writes a random JSON value: keys from a small set with case
// variants, escapes and non-ASCII, so that keys given twice and keys in
// another case come up often.
func randomDoc(r *rand.Rand, b *bytes.Buffer, depth int) {
	keys := []string{"name", "Name", "n\\u0061me", "status", "STATUS", "items", "custom_fields", "raw", "at", "Plain", "", "é", "plan", "Plan"}
	switch k := r.IntN(6); {
	case depth > 3 || k == 0:
		b.WriteString([]string{`1`, `-2.5e3`, `"x"`, `"a\"b"`, `true`, `null`, `"é\u00e9"`}[r.IntN(7)])
	case k <= 3:
		b.WriteString("{")
		for i := range r.IntN(5) {
			if i > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(b, "%q: ", keys[r.IntN(len(keys))])
			randomDoc(r, b, depth+1)
		}
		b.WriteString("}")
	default:
		b.WriteString("[ ")
		for i := range r.IntN(4) {
			if i > 0 {
				b.WriteString(",\n")
			}
			randomDoc(r, b, depth+1)
		}
		b.WriteString(" ]")
	}
}

// Check agrees with the token-stream reference, error for error and path
// for path, on random documents and on the repository's seed documents.
func TestCheckAgreesWithTheReference(t *testing.T) {
	types := []reflect.Type{reflect.TypeFor[outer](), reflect.TypeFor[any](), reflect.TypeFor[[]outer](), reflect.TypeFor[map[string]outer]()}
	r := rand.New(rand.NewPCG(1, 2))
	var docs [][]byte
	for range 3000 {
		var b bytes.Buffer
		randomDoc(r, &b, 0)
		docs = append(docs, bytes.ReplaceAll(b.Bytes(), []byte(`\\u0061`), []byte(`\u0061`)))
	}
	for _, path := range []string{"../../fake/demo-seed.json", "../../fake/testdata/sample-seed.json"} {
		data, err := os.ReadFile(path)
		require.NoError(t, err)
		docs = append(docs, data)
	}
	errs := 0
	for _, doc := range docs {
		for _, typ := range types {
			want := checkByTokens(doc, typ)
			got := Check(doc, typ)
			if want != nil {
				errs++
			}
			if !assert.Equal(t, want, got, "%s as %v", doc, typ) {
				return
			}
			if json.Valid(doc) {
				assert.Equal(t, want, CheckValid(doc, typ), "CheckValid: %s as %v", doc, typ)
			}
		}
	}
	assert.Greater(t, errs, 1000, "the documents break the rule often enough to test it")
}

func TestCheck(t *testing.T) {
	tests := []struct {
		name, doc string
		typ       reflect.Type
		want      string // "" for no error
	}{
		{"a clean document", `{"status": 1, "name": "a", "items": [{"name": "b"}], "Plain": "x"}`, reflect.TypeFor[outer](), ""},
		{"a key twice", `{"status": 503, "status": 500}`, reflect.TypeFor[outer](), "status is given more than once; give it once"},
		{"a key twice, escaped", `{"name": "a", "n\u0061me": "b"}`, reflect.TypeFor[outer](), "name is given more than once"},
		{"another case", `{"status": 503, "Status": 502}`, reflect.TypeFor[outer](), `Status: keys are case-sensitive: write "status"`},
		{"another case alone", `{"STATUS": 502}`, reflect.TypeFor[outer](), `STATUS: keys are case-sensitive: write "status"`},
		{"an embedded field in another case", `{"Name": "x"}`, reflect.TypeFor[outer](), `Name: keys are case-sensitive: write "name"`},
		{"deep in an array", `{"items": [{"name": "a"}, {"name": "b", "name": "c"}]}`, reflect.TypeFor[outer](), "items[1].name is given more than once"},
		{"a map takes any case", `{"custom_fields": {"plan": "a", "Plan": "b"}}`, reflect.TypeFor[outer](), ""},
		{"a map key twice", `{"custom_fields": {"plan": "a", "plan": "b"}}`, reflect.TypeFor[outer](), "custom_fields.plan is given more than once"},
		{"raw JSON: twice only", `{"raw": {"A": 1, "a": 2, "x": {"y": 1, "y": 2}}}`, reflect.TypeFor[outer](), "raw.x.y is given more than once"},
		{"an unknown key is the decoder's", `{"colour": "red"}`, reflect.TypeFor[outer](), ""},
		{"any", `[{"a": 1}, {"a": 1, "a": 2}]`, reflect.TypeFor[any](), "[1].a is given more than once"},
		{"not JSON", `{"a": `, reflect.TypeFor[outer](), ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := Check([]byte(tt.doc), tt.typ)
			if tt.want == "" {
				assert.NoError(t, err)
				return
			}
			assert.ErrorContains(t, err, tt.want)
			var e *Error
			assert.True(t, errors.As(err, &e))
		})
	}
}
