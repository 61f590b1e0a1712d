package main

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRandomAdminTokenIsPrinted(t *testing.T) {
	var stdout, stderr syncBuffer
	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan string, 1)
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, []string{"--addr", "127.0.0.1:0"}, &stdout, &stderr, func(a string) { ready <- a })
	}()
	var addr string
	select {
	case addr = <-ready:
	case <-time.After(safetyTimeout):
		t.Fatal("did not start")
	}
	p := &proc{t: t, stdout: &stdout}
	token := p.printed()["CONVOFAKE_ADMIN_TOKEN"]
	assert.Len(t, token, 48)

	client := &http.Client{Timeout: safetyTimeout, Transport: &http.Transport{}}
	req, _ := http.NewRequest(http.MethodGet, "http://"+addr+"/_fake/clock", nil)
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := client.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	client.CloseIdleConnections()

	cancel()
	select {
	case code := <-done:
		assert.Equal(t, exitOK, code)
	case <-time.After(safetyTimeout):
		t.Fatal("did not stop")
	}
	assert.NotContains(t, stderr.String(), token, "the admin token is never logged")
}

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
