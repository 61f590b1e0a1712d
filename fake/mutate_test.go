package fake_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/convoapi/convo-go/fake"
)

func TestParseDuration(t *testing.T) {
	tests := []struct {
		in   string
		want time.Duration
		err  bool
	}{
		{"90m", 90 * time.Minute, false},
		{"1.5h", 90 * time.Minute, false},
		{"2d", 48 * time.Hour, false},
		{"2d4h", 52 * time.Hour, false},
		{"0d", 0, false},
		{"-90m", -90 * time.Minute, false},
		{"-1d4h", -28 * time.Hour, false},
		{"", 0, true},
		{"-", 0, true},
		{"d", 0, true},
		{"soon", 0, true},
		{"yesterday", 0, true},
		{"1d-4h", 0, true},
		{"--1h", 0, true},
		{"-1d-4h", 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := fake.ParseDuration(tt.in)
			if tt.err {
				assert.EqualError(t, err, `bad duration "`+tt.in+`" (want e.g. 90m, 3h, 2d4h)`)
				return
			}
			assert.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}
