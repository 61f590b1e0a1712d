package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// newDocBuffer gives an empty buffer of the capacity asked, small (the
// heap) or big (on Linux, a mapping of its own), writable to its end and
// growing past it as any slice does.
func TestNewDocBuffer(t *testing.T) {
	for _, n := range []int{0, 1, 4 << 10, 2<<20 - 1, 2 << 20, 5<<20 + 3} {
		b := newDocBuffer(n)
		assert.Equal(t, 0, len(b))
		assert.Equal(t, n, cap(b))
		b = b[:n]
		for i := range b {
			b[i] = byte(i)
		}
		b = append(b, 'x')
		assert.Equal(t, byte('x'), b[n])
		if n > 0 {
			assert.Equal(t, byte(n-1), b[n-1])
		}
	}
}
