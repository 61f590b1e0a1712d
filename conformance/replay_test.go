package conformance_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/convoapi/convo-go"
	"github.com/convoapi/convo-go/conformance"
	"github.com/convoapi/convo-go/internal/conformancetest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// editRecording applies edit to the first exchange for which it returns a
// place, and returns the new recording, the line edited and the place.
func editRecording(t *testing.T, recording []byte, edit func(e map[string]any) string) ([]byte, int, string) {
	var out bytes.Buffer
	sc := bufio.NewScanner(bytes.NewReader(recording))
	sc.Buffer(nil, 16<<20)
	line, at, place := 0, 0, ""
	for sc.Scan() {
		line++
		b := sc.Bytes()
		if at == 0 {
			dec := json.NewDecoder(bytes.NewReader(b))
			dec.UseNumber()
			var e map[string]any
			require.NoError(t, dec.Decode(&e))
			if e["kind"] == "exchange" {
				if place = edit(e); place != "" {
					at = line
					var err error
					b, err = json.Marshal(e)
					require.NoError(t, err)
				}
			}
		}
		out.Write(b)
		out.WriteByte('\n')
	}
	require.NotZero(t, at, "no exchange to edit")
	return out.Bytes(), at, place
}

func body(e map[string]any) map[string]any { b, _ := e["body"].(map[string]any); return b }

func firstItem(e map[string]any) map[string]any {
	a := items(body(e))
	if len(a) == 0 {
		return nil
	}
	m, _ := a[0].(map[string]any)
	return m
}

// TestReplayReportsEachEdit: fourteen edits of a recording's answers, each
// reported by a replay against the recorded server, at its line and place.
func TestReplayReportsEachEdit(t *testing.T) {
	src := frozenDemo(t)
	recording := record(t, src, conformance.RecorderOptions{})
	edits := []struct {
		name string
		edit func(e map[string]any) string
	}{
		{"a message text", func(e map[string]any) string {
			if m := firstItem(e); m != nil && m["text"] != nil && strings.HasSuffix(e["path"].(string), "/messages") {
				m["text"] = "edited"
				return "body.data.items[0].text"
			}
			return ""
		}},
		{"a status code", func(e map[string]any) string {
			if e["path"] == "/channels" {
				e["status"] = json.Number("201")
				return "status"
			}
			return ""
		}},
		{"a conversation status", func(e map[string]any) string {
			if m := firstItem(e); m != nil && e["path"] == "/conversations" {
				m["status"] = "archived-by-edit"
				return "body.data.items[0].status"
			}
			return ""
		}},
		{"an unread count", func(e map[string]any) string {
			if m := firstItem(e); m != nil && e["path"] == "/conversations" {
				m["unread_count"] = json.Number("99")
				return "body.data.items[0].unread_count"
			}
			return ""
		}},
		{"a message left out", func(e map[string]any) string {
			if a := items(body(e)); len(a) > 1 && strings.HasSuffix(e["path"].(string), "/messages") {
				data(body(e))["items"] = a[:len(a)-1]
				return "body.data.items.length"
			}
			return ""
		}},
		{"a channel's display name", func(e map[string]any) string {
			if m := firstItem(e); m != nil && e["path"] == "/channels" {
				m["display_name"] = "Edited"
				return "body.data.items[0].display_name"
			}
			return ""
		}},
		{"a read window", func(e map[string]any) string {
			if w, ok := data(body(e))["window"].(map[string]any); ok && w["since"] != nil {
				w["since"] = "2020-01-01T00:00:00.000Z"
				return "body.data.window.since"
			}
			return ""
		}},
		{"an anomaly count", func(e map[string]any) string {
			if bk, ok := data(body(e))["buckets"].(map[string]any); ok {
				bk["never_engaged"].(map[string]any)["count"] = json.Number("42")
				return "body.data.buckets.never_engaged.count"
			}
			return ""
		}},
		{"a contact's name", func(e map[string]any) string {
			if e["path"] == "/chatapp/contacts/lookup" {
				data(body(e))["name"] = "Edited Name"
				return "body.data.name"
			}
			return ""
		}},
		{"an error code", func(e map[string]any) string {
			if m := errMessage(body(e)); m != nil {
				m["error"] = "EDITED"
				return "body.message.error"
			}
			return ""
		}},
		{"a last page's cursor", func(e map[string]any) string {
			if d := data(body(e)); d != nil && d["next_cursor"] == nil && e["path"] == "/conversations" {
				if _, ok := d["next_cursor"]; ok {
					d["next_cursor"] = "more"
					return "body.data.next_cursor"
				}
			}
			return ""
		}},
		{"an attachment's size", func(e map[string]any) string {
			if strings.HasPrefix(e["path"].(string), "/attachments/") {
				data(body(e))["file_size"] = json.Number("1")
				return "body.data.file_size"
			}
			return ""
		}},
		{"a waiting time beyond the cache's tolerance", func(e map[string]any) string {
			if bk, ok := data(body(e))["buckets"].(map[string]any); ok {
				if it, _ := bk["unanswered"].(map[string]any)["items"].([]any); len(it) > 0 {
					it[0].(map[string]any)["waiting_hours"] = shifted(it[0].(map[string]any)["waiting_hours"], 0.5)
					return "body.data.buckets.unanswered.items[0].waiting_hours"
				}
			}
			return ""
		}},
		{"a file address's expiry", func(e map[string]any) string {
			if strings.HasPrefix(e["path"].(string), "/attachments/") {
				data(body(e))["expires_at"] = "2026-11-26T13:00:00.000Z"
				return "body.data.expires_at"
			}
			return ""
		}},
	}
	require.GreaterOrEqual(t, len(edits), 14)
	caught := 0
	for _, tt := range edits {
		t.Run(tt.name, func(t *testing.T) {
			edited, line, place := editRecording(t, recording, tt.edit)
			rep, err := conformance.Replay(t.Context(), bytes.NewReader(edited), conformance.ReplayConfig{BaseURL: src.URL(), APIKey: src.APIKey(), Pace: -1})
			require.NoError(t, err)
			require.NotEmpty(t, rep.Differences)
			d := rep.Differences[0]
			if assert.Equal(t, line, d.Line) && assert.Equal(t, place, d.Place, "%+v", rep.Differences) {
				caught++
			}
			assert.Len(t, rep.Differences, 1, "%+v", rep.Differences)
		})
	}
	t.Logf("score: %d of %d edits reported at their place", caught, len(edits))
}

// shifted is a JSON number moved by d, with one decimal.
func shifted(v any, d float64) json.Number {
	f, _ := strconv.ParseFloat(fmt.Sprint(v), 64)
	return json.Number(strconv.FormatFloat(f+d, 'f', 1, 64))
}

// TestReplayComparesByRule: what a server computes from its clock or its
// cache is compared by the stated rule: a waiting_hours within the cache's
// tolerance is no difference, and neither is a read window and a file
// expiry that moved with the envelope's timestamp.
func TestReplayComparesByRule(t *testing.T) {
	src := frozenDemo(t)
	var buf bytes.Buffer
	rec := conformance.NewRecorder(&buf, conformance.RecorderOptions{})
	conformancetest.RecordPartial(t, src.Client(convo.WithMiddleware(rec.Middleware))) // a read in the default window
	recording := buf.Bytes()
	for _, tt := range []struct {
		name string
		edit func(e map[string]any) string
	}{
		{"waiting_hours 0.1 lower (computed from the cache, earlier)", func(e map[string]any) string {
			if bk, ok := data(body(e))["buckets"].(map[string]any); ok {
				if it, _ := bk["unanswered"].(map[string]any)["items"].([]any); len(it) > 0 {
					it[0].(map[string]any)["waiting_hours"] = shifted(it[0].(map[string]any)["waiting_hours"], -0.1)
					return "waiting_hours"
				}
			}
			return ""
		}},
		{"a message read 33 ms later", func(e map[string]any) string {
			if w, ok := data(body(e))["window"].(map[string]any); ok && strings.Contains(e["path"].(string), "/messages") && e["query"] == nil {
				w["since"] = later(w["since"], 33*time.Millisecond)
				body(e)["timestamp"] = later(body(e)["timestamp"], 33*time.Millisecond)
				return "window.since"
			}
			return ""
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			edited, _, _ := editRecording(t, recording, tt.edit)
			rep, err := conformance.Replay(t.Context(), bytes.NewReader(edited), conformance.ReplayConfig{BaseURL: src.URL(), APIKey: src.APIKey(), Pace: -1})
			require.NoError(t, err)
			assert.Empty(t, rep.Differences)
		})
	}
}

// later is a recorded time moved on by d.
func later(v any, d time.Duration) string {
	at, _ := time.Parse(time.RFC3339Nano, fmt.Sprint(v))
	return at.Add(d).UTC().Format("2006-01-02T15:04:05.000Z")
}

func TestReadRecordingRefuses(t *testing.T) {
	tests := []struct{ name, in string }{
		{"not JSON", "{"},
		{"unknown kind", `{"kind":"tape"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := conformance.ReadRecording(strings.NewReader(tt.in))
			require.Error(t, err)
			assert.Contains(t, err.Error(), "line 1")
		})
	}
	_, _, err := conformance.SeedFromRecording(strings.NewReader(""))
	assert.True(t, err != nil && !errors.Is(err, conformance.ErrCannotRun))
}
