package strictjson

import (
	"encoding/json"
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

type inner struct {
	Name   string            `json:"name"`
	Fields map[string]string `json:"custom_fields"`
}

type outer struct {
	inner
	Status int             `json:"status"`
	Items  []inner         `json:"items"`
	At     time.Time       `json:"at"`
	Raw    json.RawMessage `json:"raw"`
	Plain  string
	Hidden string `json:"-"`
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
