package fake

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestByIDFindsEveryFormOfID(t *testing.T) {
	m := newByID[int]()
	ids := []string{newUUID(), "0B6F2C1E-1111-4A5B-9C3D-000000000001", "contact-7", ""}
	for i, id := range ids {
		m.put(id, i+1)
	}
	for i, id := range ids {
		assert.Equal(t, i+1, m.get(id), id)
	}
	assert.Zero(t, m.get(newUUID()))
	assert.Zero(t, m.get("0b6f2c1e-1111-4a5b-9c3d-000000000001"), "another form of a stored id is another id")
	assert.Equal(t, len(ids), m.len())
	got := slices.Sorted(m.all())
	assert.Equal(t, []int{1, 2, 3, 4}, got)
	for range m.all() {
		break // stopping early is allowed
	}
}
