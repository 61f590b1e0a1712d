package fake_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/convoapi/convo-go/fake"
)

func TestClocks(t *testing.T) {
	m := fake.NewManualClock(t0)
	assert.True(t, m.Manual())
	assert.Equal(t, t0, m.Now())
	m.Advance(90 * time.Minute)
	assert.Equal(t, t0.Add(90*time.Minute), m.Now())
	m.Set(t0)
	assert.Equal(t, t0, m.Now())

	r := fake.NewRealClock()
	assert.False(t, r.Manual())
	r.Set(t0)
	assert.WithinDuration(t, t0, r.Now(), time.Second)
	r.Advance(time.Hour)
	assert.WithinDuration(t, t0.Add(time.Hour), r.Now(), time.Second)
}
