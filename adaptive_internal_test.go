package convo

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestCutFromAndPlateauUnder: a refusal cuts by 15 %, or by one attempt a
// second when that is more (at most by half); the regrowth rests 5 % under
// the last refusal's rate, or half an attempt a second under it when that
// is more (at no less than 70 % of it). At 10 a second and more both are
// the plain shares.
func TestCutFromAndPlateauUnder(t *testing.T) {
	tests := []struct {
		rate, cut, plateau float64
	}{
		{rate: 1000, cut: 850, plateau: 0.95},
		{rate: 10, cut: 8.5, plateau: 0.95},
		{rate: 6, cut: 5, plateau: 1 - 0.5/6},
		{rate: 2.5, cut: 1.5, plateau: 0.8},
		{rate: 1.5, cut: 0.75, plateau: 0.7},
		{rate: 0.01, cut: 0.005, plateau: 0.7},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprint(tt.rate), func(t *testing.T) {
			assert.InDelta(t, tt.cut, cutFrom(tt.rate), 1e-9)
			assert.InDelta(t, tt.plateau, plateauUnder(tt.rate), 1e-9)
		})
	}
}
