package strictjson

import (
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
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

// Unmarshal keeps the rule and names the place alike on every Go version:
// encoding/json and the key check on Go 1.26, encoding/json/v2 on 1.27.
func TestUnmarshal(t *testing.T) {
	tests := []struct {
		name, doc string
		rule      string // the *Error's text, "" for none
		other     string // another error's text, "" for none
	}{
		{"a clean document", `{"status": 1, "name": "a", "items": [{"name": "b"}], "Plain": "x", "at": "2026-11-22T10:00:00Z", "raw": {"x": 1}}`, "", ""},
		{"white space around it", " \n{\"status\": 1}\t\n", "", ""},
		{"a key twice", `{"status": 503, "status": 500}`, "status is given more than once; give it once", ""},
		{"a key twice, escaped", `{"name": "a", "n\u0061me": "b"}`, "name is given more than once", ""},
		{"an empty key twice", `{"custom_fields": {"": "a", "": "b"}}`, `custom_fields."" is given more than once`, ""},
		{"another case", `{"status": 503, "Status": 502}`, `Status: keys are case-sensitive: write "status"`, ""},
		{"another case alone", `{"STATUS": 502}`, `STATUS: keys are case-sensitive: write "status"`, ""},
		{"an embedded field in another case", `{"Name": "x"}`, `Name: keys are case-sensitive: write "name"`, ""},
		{"deep in an array", `{"items": [{"name": "a"}, {"name": "b", "name": "c"}]}`, "items[1].name is given more than once", ""},
		{"a map key that is a number", `{"custom_fields": {"0": "a", "0": "b"}}`, "custom_fields.0 is given more than once", ""},
		{"a map key twice", `{"custom_fields": {"plan": "a", "plan": "b"}}`, "custom_fields.plan is given more than once", ""},
		{"raw JSON: twice only", `{"raw": {"x": {"y": 1, "y": 2}}}`, "raw.x.y is given more than once", ""},
		{"twice, then a wrong type", `{"status": 1, "status": "x"}`, "status is given more than once", ""},
		{"an unknown key", `{"colour": "red"}`, "", `unknown field "colour"`},
		{"a wrong type", `{"status": "x"}`, "", "cannot unmarshal"},
		{"twice, then a syntax error", `{"status": 1, "status": 2`, "", "unexpected EOF"},
		{"a second value", `{"status": 1} {}`, "", ErrMoreThanOneValue.Error()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var v outer
			err := Unmarshal([]byte(tt.doc), &v)
			var e *Error
			switch {
			case tt.rule != "":
				require.ErrorAs(t, err, &e)
				assert.Equal(t, tt.rule, e.Error()[:len(tt.rule)])
			case tt.other != "":
				require.Error(t, err)
				assert.False(t, errors.As(err, &e), "not the rule: %v", err)
				assert.Contains(t, err.Error(), tt.other)
			default:
				assert.NoError(t, err)
			}
		})
	}
}

// What Unmarshal decodes is what encoding/json decodes.
func TestUnmarshalAgreesWithEncodingJSON(t *testing.T) {
	doc := []byte(`{"status": 1, "name": "a", "custom_fields": {"plan": "pro"}, "items": [{"name": "b"}, {}], "Plain": "x", "at": "2026-11-22T10:00:00.123Z", "raw": {"x": [1, 2]}}`)
	var want, got outer
	require.NoError(t, json.Unmarshal(doc, &want))
	require.NoError(t, Unmarshal(doc, &got))
	assert.Equal(t, want, got)
}
