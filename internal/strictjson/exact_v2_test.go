//go:build go1.27 && goexperiment.jsonv2

package strictjson

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type tree struct {
	Name string `json:"name"`
	Kids []tree `json:"kids"`
}

// ExactSlices decodes each array into a slice of its length, an array of
// the same type inside another included (each has a scratch of its own),
// and leaves null as encoding/json/v2 leaves it.
func TestExactSlices(t *testing.T) {
	var got tree
	doc := `{"kids":[{"name":"a","kids":[{"name":"b"},{"name":"c","kids":[]}]},{"name":"d","kids":null},{"name":"e"}]}`
	require.NoError(t, Unmarshal([]byte(doc), &got, ExactSlices[tree]()))
	want := tree{Kids: []tree{
		{Name: "a", Kids: []tree{{Name: "b"}, {Name: "c", Kids: []tree{}}}},
		{Name: "d"},
		{Name: "e"},
	}}
	assert.Equal(t, want, got)
	assert.Equal(t, 3, cap(got.Kids))
	assert.Equal(t, 2, cap(got.Kids[0].Kids))
	assert.NotNil(t, got.Kids[0].Kids[1].Kids, "[] stays an empty slice")

	// A fault inside an array is reported as without the option.
	err := Unmarshal([]byte(`{"kids":[{"name":"a","name":"b"}]}`), &tree{}, ExactSlices[tree]())
	assert.Equal(t, &Error{Path: "kids[0].name"}, err)
}
