package epoch_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/convoapi/convo-go/internal/epoch"
)

// TestAlignDown: the latest multiple of d since the Unix epoch not after t;
// t itself when it is one; before the epoch as after it; and for a d that
// does not divide a day, counted from the epoch, not from year 1 as
// time.Time.Truncate counts.
func TestAlignDown(t *testing.T) {
	tests := []struct {
		name string
		t    time.Time
		d    time.Duration
		want time.Time
	}{
		{name: "a second", t: time.Unix(5, 300e6), d: time.Second, want: time.Unix(5, 0)},
		{name: "on the grid", t: time.Unix(5, 0), d: time.Second, want: time.Unix(5, 0)},
		{name: "125 ms", t: time.Unix(5, 300e6), d: 125 * time.Millisecond, want: time.Unix(5, 250e6)},
		{name: "before the epoch", t: time.Unix(-2, 300e6), d: 500 * time.Millisecond, want: time.Unix(-2, 0)},
		{name: "7 s, from the epoch", t: time.Unix(100, 0), d: 7 * time.Second, want: time.Unix(98, 0)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.True(t, tt.want.Equal(epoch.AlignDown(tt.t, tt.d)), "got %v", epoch.AlignDown(tt.t, tt.d))
		})
	}
	assert.False(t, time.Unix(100, 0).Truncate(7*time.Second).Equal(time.Unix(98, 0)), "Truncate counts from year 1")
}
