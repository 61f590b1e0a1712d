package main

import (
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/convoapi/convo-go/examples/internal/demo"
)

var (
	// dateInOutput is how the tour prints a date and time.
	dateInOutput = regexp.MustCompile(`\d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC`)
	// randomInOutput matches what each fake draws afresh: ids and errorIds.
	randomInOutput = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|ERR-[0-9A-Z]+-[0-9A-Z]+`)
)

// TestTourOnAnyDate runs the tour with the service's clock at 2001-01-01, at
// 2099-12-31 and at today's date: once its dates are moved back to the
// reference date, the output is the same, and the one file is asked for
// once.
func TestTourOnAnyDate(t *testing.T) {
	reference := randomInOutput.ReplaceAllString(tourAt(t, start), "<random>")
	today := time.Now().UTC().Truncate(24 * time.Hour).Add(12 * time.Hour)
	for _, at := range []time.Time{
		time.Date(2001, 1, 1, 12, 0, 0, 0, time.UTC),
		time.Date(2099, 12, 31, 12, 0, 0, 0, time.UTC),
		today,
	} {
		t.Run(at.Format("2006-01-02"), func(t *testing.T) {
			out := tourAt(t, at)
			shift := start.Sub(at) // whole days: times of day print alike
			moved := dateInOutput.ReplaceAllStringFunc(out, func(s string) string {
				d, err := time.Parse("2006-01-02 15:04 MST", s)
				require.NoError(t, err)
				return d.Add(shift).Format("2006-01-02 15:04 MST")
			})
			assert.Equal(t, reference, randomInOutput.ReplaceAllString(moved, "<random>"))
		})
	}
}

// tourAt runs the tour against the seeded fake at a service date and returns
// its output, after checking that it asked for the one address once.
func tourAt(t *testing.T, at time.Time) string {
	t.Helper()
	s := newServiceAt(t, at)
	demo.PointAt(t, s)
	code, out, errOut := runQuickstart(t)
	require.Equal(t, 0, code, errOut)
	addresses := 0
	for _, r := range s.Requests() {
		if strings.Contains(r.Path, "/attachments/") {
			addresses++
		}
	}
	assert.Equal(t, 1, addresses, "one address request for the one file")
	return out
}
