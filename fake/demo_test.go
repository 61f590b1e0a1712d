package fake_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/convoapi/convo-go/fake"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestDemoSeed(t *testing.T) {
	clock := fake.NewManualClock(t0)
	s := newServer(t, fake.WithClock(clock), fake.WithSeed(fake.DemoSeed()))
	co := s.Company()
	assert.Len(t, co.Contacts(), 9)
	ch := get(t, s, "/channels").Data(t, 200)
	assert.Equal(t, 3, strings.Count(ch, `"status":"connected"`))
	all := listConvs(t, s, mapQuery("status", "all", "limit", "100"))
	assert.Len(t, all.Items, 11)

	var an struct {
		Buckets map[string]struct {
			Count int `json:"count"`
		} `json:"buckets"`
	}
	require.NoError(t, json.Unmarshal([]byte(get(t, s, "/conversations/anomalies?include=unassigned,automation_only").Data(t, 200)), &an))
	assert.Equal(t, 4, an.Buckets["unanswered"].Count)      // ana (4h58m), bruno (7h), farid (7h50m, unsupported after the reply), visitor (12h29m)
	assert.Equal(t, 2, an.Buckets["never_engaged"].Count)   // the campaign and the empty conversation
	assert.Equal(t, 1, an.Buckets["automation_only"].Count) // carla
	assert.Equal(t, 2, an.Buckets["unassigned"].Count)      // bruno, visitor
	// Loaded relative to the clock: a later load moves with it.
	clock.Advance(48 * time.Hour)
	require.NoError(t, s.Load(fake.DemoSeed()))
	assert.Len(t, listConvs(t, s, mapQuery("status", "all", "since", "2026-11-24T00:00:00Z")).Items, 5)
}

func mapQuery(kv ...string) map[string][]string {
	q := map[string][]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		q[kv[i]] = []string{kv[i+1]}
	}
	return q
}

// On the demo data, read every operation and walk every answer
// (docs/behaviour.md, Time and Attachments). Every time (timestamp, *_at, window.since,
// expires_at) has exactly three fractional digits and Z; no string of a
// message is a URL or a storage path.
func TestTimestampsAndNoURLsAcrossTheDemo(t *testing.T) {
	clock := fake.NewManualClock(t0.Add(987654321 * time.Nanosecond)) // sub-millisecond on purpose
	s := newServer(t, fake.WithClock(clock), fake.WithSeed(fake.DemoSeed()))
	var times int
	var walk func(key string, v any, inMessage bool)
	walk = func(key string, v any, inMessage bool) {
		switch x := v.(type) {
		case map[string]any:
			for k, e := range x {
				walk(k, e, inMessage)
			}
		case []any:
			for _, e := range x {
				walk(key, e, inMessage)
			}
		case string:
			if key == "timestamp" || key == "since" || strings.HasSuffix(key, "_at") {
				times++
				assert.Regexp(t, tsPattern, x, key)
			}
			if inMessage {
				assert.NotContains(t, x, "://", key)
				assert.NotContains(t, x, "_files", key)
				assert.False(t, strings.HasPrefix(x, "/"), "%s: %q", key, x)
				if key == "filename" {
					assert.NotContains(t, x, "/")
				}
			}
		}
	}
	check := func(path string, inMessage bool) map[string]any {
		r := get(t, s, path)
		require.Equal(t, 200, r.Status, "%s: %s", path, r.Body)
		m := r.JSON(t)
		walk("", m, inMessage)
		return m
	}
	check("/channels", false)
	check("/conversations/anomalies?include=unassigned,automation_only", false)
	check("/chatapp/contacts/lookup?phone_number=5511987654321", false)
	convs := check("/conversations?status=all&limit=100", false)
	items := convs["data"].(map[string]any)["items"].([]any)
	require.Len(t, items, 11)
	for _, it := range items {
		id := it.(map[string]any)["id"].(string)
		m := check("/conversations/"+id+"/messages?since=2000-01-01T00:00:00Z&limit=100", true)
		for _, msg := range m["data"].(map[string]any)["items"].([]any) {
			md, _ := msg.(map[string]any)["media"].(map[string]any)
			if mid, ok := md["media_id"].(string); ok {
				check("/attachments/"+mid, false)
			}
		}
		check("/conversations/"+id+"/messages", true) // the default window's since
	}
	assert.Greater(t, times, 100)
}
