package strictjson

import (
	"bytes"
	"encoding/json"
	"io"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type level string

type leaf struct {
	Name  string            `json:"name"`
	Level level             `json:"level,omitempty"`
	Tags  []string          `json:"tags,omitempty"`
	Attrs map[string]string `json:"attrs,omitempty"`
}

// every holds a field of each kind Decode reads, and two it leaves to
// encoding/json (Any, Raw).
type every struct {
	S      string          `json:"s"`
	B      bool            `json:"b"`
	I      int             `json:"i"`
	I8     int8            `json:"i8"`
	U      uint16          `json:"u"`
	F      float64         `json:"f"`
	At     time.Time       `json:"at"`
	AtP    *time.Time      `json:"at_p,omitempty"`
	N      *int            `json:"n,omitempty"`
	Data   []byte          `json:"data"`
	Leaf   *leaf           `json:"leaf,omitempty"`
	Leaves []leaf          `json:"leaves"`
	Nested [][]int         `json:"nested"`
	Any    any             `json:"any,omitempty"`
	Raw    json.RawMessage `json:"raw,omitempty"`
	Plain  string
	Hidden string `json:"-"`
	//lint:ignore U1000 an unexported field is no key: a test gives one
	quiet string
}

type embeds struct {
	leaf
	X int `json:"x"`
}

// decodeByEncodingJSON is what Decode stands for: json.Decoder with
// DisallowUnknownFields, nothing after the value, and Check.
func decodeByEncodingJSON(data []byte, v any) bool {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if dec.Decode(v) != nil {
		return false
	}
	if _, err := dec.Token(); err != io.EOF {
		return false
	}
	return Check(data, reflect.TypeOf(v).Elem()) == nil
}

// agrees checks Decode against encoding/json on doc: when Decode takes a
// document, encoding/json takes it too, with the same value.
func agrees[T any](t *testing.T, doc []byte) (fast bool) {
	t.Helper()
	var got, want T
	fast = Decode(doc, &got)
	if fast {
		require.True(t, decodeByEncodingJSON(doc, &want), "Decode took %q, encoding/json does not", doc)
		assert.Equal(t, want, got, "%s", doc)
	}
	return fast
}

func TestDecode(t *testing.T) {
	tests := []struct {
		name, doc string
		fast      bool // Decode takes it; else it is left to encoding/json
	}{
		{"every kind", `{"s":"a\u00e9\n\"","b":true,"i":-12,"i8":127,"u":65535,"f":-1.5e3,"at":"2026-11-22T10:00:00.5+01:00",
			"at_p":"2026-11-22T10:00:00Z","n":0,"data":"aGVsbG8=","leaf":{"name":"é","level":"high","tags":[],"attrs":{}},
			"leaves":[{"name":"x","tags":["a","b"],"attrs":{"k":"v","K":"w"}},{"name":"y","level":"high"}],"nested":[[1,2],[],[3]],
			"Plain":"p"}`, true},
		{"white space around", " \n\t{ \"s\" : \"x\" , \"leaves\" : [ ] }\r\n", true},
		{"an escaped key", `{"\u0073":"x"}`, true},
		{"empty", `{}`, true},
		{"a key twice", `{"s":"a","s":"b"}`, false},
		{"a key twice, escaped", `{"s":"a","\u0073":"b"}`, false},
		{"a map key twice", `{"leaf":{"name":"x","attrs":{"k":"a","k":"b"}}}`, false},
		{"another case", `{"S":"a"}`, false},
		{"an unknown key", `{"colour":"red"}`, false},
		{"the name of a hidden field", `{"Hidden":"x"}`, false},
		{"an unexported field", `{"quiet":"x"}`, false},
		{"a null", `{"s":null}`, false},
		{"a null pointer", `{"leaf":null}`, false},
		{"a wrong type", `{"s":1}`, false},
		{"a fraction into an int", `{"i":1.0}`, false},
		{"an overflow", `{"i8":128}`, false},
		{"a negative uint", `{"u":-1}`, false},
		{"a leading zero", `{"i":01}`, false},
		{"a plus sign", `{"i":+1}`, false},
		{"a bad time", `{"at":"2026-11-22"}`, false},
		{"bad base64", `{"data":"%%%"}`, false},
		{"base64 with an escape", `{"data":"aGVs\u0062G8="}`, false},
		{"an interface", `{"any":1}`, false},
		{"raw JSON", `{"raw":{}}`, false},
		{"a second value", `{} {}`, false},
		{"a trailing comma", `{"s":"a",}`, false},
		{"an array trailing comma", `{"nested":[[1,],[]]}`, false},
		{"truncated", `{"s":"a"`, false},
		{"truncated in a string", `{"s":"a`, false},
		{"a control character", "{\"s\":\"a\tb\"}", false},
		{"invalid UTF-8, replaced as encoding/json does", "{\"s\":\"a\xffb\"}", true},
		{"a literal glued", `{"b":truex}`, false},
		{"not an object", `[]`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.fast, agrees[every](t, []byte(tt.doc)))
		})
	}
}

// A type Decode does not read itself is left to encoding/json whole.
func TestDecode_EmbeddedStruct(t *testing.T) {
	var v embeds
	assert.False(t, Decode([]byte(`{"x":1}`), &v))
	assert.False(t, Decode([]byte(`{}`), nil))
}

// FuzzDecode checks that Decode takes only what encoding/json takes, and
// decodes it alike.
//
//	go test ./internal/strictjson -run '^$' -fuzz '^FuzzDecode$' -fuzztime 60s
func FuzzDecode(f *testing.F) {
	f.Add([]byte(`{"s":"a","b":true,"i":-1,"u":2,"f":0.5,"at":"2026-11-22T10:00:00Z","data":"YQ==","leaves":[{"name":"x","attrs":{"k":"v"}}],"nested":[[1]]}`))
	f.Add([]byte(`{"leaf":{"name":"\u00e9","level":"x","tags":["a"]},"n":3,"at_p":"2026-01-01T00:00:00Z"}`))
	f.Add([]byte(`{"s":"a","s":"b"}`))
	f.Add([]byte(`{"i":1e3}`))
	f.Fuzz(func(t *testing.T, doc []byte) {
		agrees[every](t, doc)
	})
}

// Long arrays, first and again (the scratch slice handed over, then
// reused), and arrays inside arrays of the same type.
func TestDecode_LongArrays(t *testing.T) {
	tags := `"t0"` + strings.Repeat(`,"t"`, 69)
	leaf := `{"name":"x","tags":[` + tags + `]}`
	leaves := leaf + strings.Repeat(","+leaf, 99)
	ints := "0" + strings.Repeat(",1", 69)
	doc := `{"leaves":[` + leaves + `],"nested":[[` + ints + `],[],[` + ints + `]]}`
	require.True(t, agrees[every](t, []byte(doc)))
	var v every
	require.True(t, Decode([]byte(doc), &v))
	assert.Len(t, v.Leaves, 100)
	assert.Len(t, v.Leaves[99].Tags, 70)
	assert.Equal(t, []int{}, v.Nested[1])
}

type node struct {
	Kids []node `json:"kids"`
}

// A recursive type is read as deep as encoding/json reads it, and no
// deeper.
func TestDecode_Depth(t *testing.T) {
	nest := func(n int) []byte {
		return []byte(strings.Repeat(`{"kids":[`, n) + strings.Repeat(`]}`, n))
	}
	assert.True(t, agrees[node](t, nest(100)))
	var v node
	assert.False(t, Decode(nest(6000), &v), "past encoding/json's depth")
}
