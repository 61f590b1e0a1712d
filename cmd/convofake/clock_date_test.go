package main

import (
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The Date header states the fake's time, as the envelope's timestamp does:
// on a frozen clock years away from the machine's, a client measuring a
// Retry-After date against it waits what the service meant.
func TestDateHeaderIsTheFakesClock(t *testing.T) {
	for _, at := range []string{"2001-01-01T09:00:00Z", "2099-12-31T23:00:00Z"} {
		t.Run(at, func(t *testing.T) {
			p := start(t, "--clock", "frozen:"+at)
			want, err := time.Parse(time.RFC3339, at)
			require.NoError(t, err)
			for _, path := range []string{"/v1/channels", "/v1/no-such-path"} {
				r := p.api(path, p.printed()["CONVO_API_KEY"])
				date, err := http.ParseTime(r.header.Get("Date"))
				require.NoError(t, err, path)
				assert.True(t, want.Equal(date), "%s: Date %s, the fake's clock %s", path, date, want)
				assert.Equal(t, at[:19]+".000Z", r.json(t)["timestamp"], path)
			}
		})
	}
}
