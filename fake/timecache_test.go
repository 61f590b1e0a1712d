package fake

import (
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// The cached texts are those formatting would make, across seconds and
// milliseconds, forward and back, before 1970 and in another zone.
func TestTimeCache(t *testing.T) {
	base := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	var c timeCache
	for _, at := range []time.Time{
		base, base, base.Add(999 * time.Millisecond), base.Add(999*time.Millisecond + 999*time.Microsecond),
		base.Add(time.Second), base.Add(time.Second + time.Millisecond), base.Add(time.Second), base,
		base.Add(-time.Nanosecond), time.Date(1969, 12, 31, 23, 59, 59, 500_000_000, time.UTC),
		time.Date(1969, 12, 31, 23, 59, 58, 500_000_000, time.UTC), base.In(time.FixedZone("BRT", -3*3600)),
	} {
		assert.Equal(t, at.UTC().Format(http.TimeFormat), c.dateHeader(at), "%v", at)
		assert.Equal(t, string(encode(formatTime(at))), string(c.timestampJSON(at)), "%v", at)
	}
}
