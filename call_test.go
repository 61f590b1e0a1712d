package convo

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestPacerQueueOrder: retries wait before first attempts, the call refused
// most often first, a call's last attempt after the other retries, and
// attempts of the same rank in the order they came.
func TestPacerQueueOrder(t *testing.T) {
	type arrival struct {
		name  string
		retry bool
		rank  int
	}
	tests := []struct {
		name     string
		arrivals []arrival
		want     []string
	}{
		{"retries before first attempts", []arrival{{"a", false, 1}, {"b", true, 2}, {"c", false, 1}}, []string{"b", "a", "c"}},
		{"most refused first", []arrival{{"two", true, 2}, {"three", true, 3}, {"two'", true, 2}}, []string{"three", "two", "two'"}},
		{"a last attempt after the other retries", []arrival{{"last", true, 0}, {"two", true, 2}, {"first", false, 1}, {"three", true, 3}},
			[]string{"three", "two", "last", "first"}},
		{"last attempts in the order they came", []arrival{{"x", true, 0}, {"y", true, 0}}, []string{"x", "y"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := &pacer{}
			names := map[*waiter]string{}
			for _, a := range tt.arrivals {
				w := &waiter{wake: make(chan struct{}, 1), rank: a.rank}
				names[w] = a.name
				p.join(w, a.retry)
			}
			var got []string
			for h := p.head(); h != nil; h = p.head() {
				got = append(got, names[h])
				p.leave(h)
			}
			assert.Equal(t, tt.want, got)
		})
	}
}
