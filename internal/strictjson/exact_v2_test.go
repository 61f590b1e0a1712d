//go:build go1.27 && goexperiment.jsonv2

package strictjson

import (
	"fmt"
	"strings"
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

type leaf struct {
	Name string `json:"name"`
}

type group struct {
	Items []leaf `json:"items"`
}

// Arrays longer than a scratch chunk, one after another, come out whole,
// in order and each of its length: the chunks the next array uses again
// start from zero values.
func TestExactSlicesAcrossChunks(t *testing.T) {
	sizes := []int{5000, 17, 0, 16, 4113, 3}
	var doc strings.Builder
	doc.WriteString(`[`)
	for i, n := range sizes {
		if i > 0 {
			doc.WriteByte(',')
		}
		doc.WriteString(`{"items":[`)
		for k := range n {
			if k > 0 {
				doc.WriteByte(',')
			}
			if (i+k)%2 == 0 {
				fmt.Fprintf(&doc, `{"name":"%d.%d"}`, i, k)
			} else {
				doc.WriteString(`{}`)
			}
		}
		doc.WriteString(`]}`)
	}
	doc.WriteString(`]`)
	var got []group
	require.NoError(t, Unmarshal([]byte(doc.String()), &got, ExactSlices[leaf]()))
	require.Len(t, got, len(sizes))
	for i, n := range sizes {
		items := got[i].Items
		require.Len(t, items, n)
		assert.Equal(t, n, cap(items))
		for k, item := range items {
			want := ""
			if (i+k)%2 == 0 {
				want = fmt.Sprintf("%d.%d", i, k)
			}
			if item.Name != want {
				t.Fatalf("[%d].items[%d].name = %q, want %q", i, k, item.Name, want)
			}
		}
	}

	// Short arrays share a block; appending to one leaves the next alone.
	next := got[3].Items[0]
	got[1].Items = append(got[1].Items, leaf{Name: "appended"})
	assert.Equal(t, next, got[3].Items[0])
}
