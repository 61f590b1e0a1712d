package recordredact

import (
	"testing"

	"github.com/convoapi/convo-go/internal/testkit"
	"github.com/stretchr/testify/assert"
)

func TestRedactorString(t *testing.T) {
	for _, key := range testkit.Keys {
		r := New(key)
		for name, esc := range testkit.Escapings {
			t.Run(name+"/"+key, func(t *testing.T) {
				in := `{"a":"x` + esc(key) + `y"}`
				out := r.String(in)
				assert.NotContains(t, out, esc(key))
				assert.Contains(t, out, Marker)
				assert.Contains(t, out, `{"a":"x`)
			})
		}
	}
}

func TestRedactorNothingToDo(t *testing.T) {
	tests := []struct {
		name string
		r    *Redactor
	}{
		{"zero", &Redactor{}},
		{"nil", nil},
		{"empty secret", New("")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, "abc", tt.r.String("abc"))
			assert.Equal(t, []byte("abc"), tt.r.Bytes([]byte("abc")))
		})
	}
}
