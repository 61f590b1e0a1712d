package conformance_test

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/convoapi/convo-go"
	"github.com/convoapi/convo-go/conformance"
	"github.com/convoapi/convo-go/fake"
	"github.com/convoapi/convo-go/internal/conformancetest"
	"github.com/convoapi/convo-go/internal/keyforms"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var recordStart = time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)

// frozenDemo is a fake with the demo data on a clock frozen at
// recordStart, as convofake --clock=frozen runs.
func frozenDemo(t *testing.T, opts ...fake.Option) *fake.Server {
	return fake.New(t, append([]fake.Option{fake.WithSeed(fake.DemoSeed()), fake.WithClock(fake.NewManualClock(recordStart))}, opts...)...)
}

func record(t *testing.T, s *fake.Server, opts conformance.RecorderOptions) []byte {
	var buf bytes.Buffer
	rec := conformance.NewRecorder(&buf, opts)
	conformancetest.RecordEverything(t, s.Client(convo.WithMiddleware(rec.Middleware)), recordStart)
	require.NoError(t, rec.Err())
	return buf.Bytes()
}

// TestSeedFromRecordingReplaysWithoutDifference: a recording of a whole
// read of the demo data, turned into a seed; a fake started from that seed
// answers the recording's requests exactly as recorded.
func TestSeedFromRecordingReplaysWithoutDifference(t *testing.T) {
	recording := record(t, frozenDemo(t), conformance.RecorderOptions{})
	seed, notes, err := conformance.SeedFromRecording(bytes.NewReader(recording))
	require.NoError(t, err)
	t.Logf("notes: %q", notes)
	dst := fake.New(t, fake.WithSeed(seed))
	rep, err := conformance.Replay(t.Context(), bytes.NewReader(recording), conformance.ReplayConfig{BaseURL: dst.URL(), APIKey: dst.APIKey(), Pace: -1})
	require.NoError(t, err)
	var text strings.Builder
	require.NoError(t, rep.WriteText(&text))
	assert.Empty(t, rep.Differences, text.String())
	assert.Greater(t, rep.Exchanges, 30)
	t.Logf("%d exchanges, %d requests, %d differences", rep.Exchanges, rep.Sent, len(rep.Differences))
}

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

// TestReplayReportsEachEdit: ten edits of a recording, each reported by a
// replay against the recorded server, at its place.
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
	}
	require.GreaterOrEqual(t, len(edits), 10)
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

// TestRecorderRemovesTheKey records a whole read with keys that need
// escaping, through a proxy that echoes the key in every escaping into
// each answer: the recording holds none of them.
func TestRecorderRemovesTheKey(t *testing.T) {
	for _, key := range keyforms.Keys {
		t.Run(key, func(t *testing.T) {
			s := demoHandler(t, fake.WithAPIKey(key), fake.WithClock(fake.NewManualClock(recordStart)))
			ts := conformancetest.Proxy(t, s.Handler(), conformancetest.Alteration{Resp: conformancetest.EchoKey(key)})
			var buf bytes.Buffer
			rec := conformance.NewRecorder(&buf, conformance.RecorderOptions{})
			client, err := convo.NewClient(convo.WithBaseURL(ts.URL+"/v1"), convo.WithAPIKey(key), convo.WithMiddleware(rec.Middleware))
			require.NoError(t, err)
			conformancetest.RecordEverything(t, client, recordStart)
			require.NoError(t, rec.Err())
			out := buf.String()
			require.Contains(t, out, "[REDACTED]", "the echoed key was there to remove")
			for name, esc := range keyforms.Escapings {
				assert.NotContains(t, out, esc(key), name)
			}
		})
	}
}

// TestRecorderPseudonymises: no phone, name or text of the demo data is
// left, and a phone sent in a query is replaced as the conversation's
// channel_identifier was, so references still hold.
func TestRecorderPseudonymises(t *testing.T) {
	recording := record(t, frozenDemo(t), conformance.RecorderOptions{Pseudonymise: true, Salt: "test"})
	out := string(recording)
	for _, secret := range []string{"5511987654321", "Ana Souza", "ana.souza@example.com", "hasn't arrived", "tracking.png", "vip"} {
		assert.NotContains(t, out, secret)
	}
	assert.Contains(t, out, conformance.RecordingNote)
	entries, err := conformance.ReadRecording(bytes.NewReader(recording))
	require.NoError(t, err)
	idents := map[string]bool{}
	lookedUp := 0
	for _, e := range entries {
		if e.Path == "/conversations" {
			var b struct {
				Data struct {
					Items []struct {
						ChannelIdentifier string `json:"channel_identifier"`
					} `json:"items"`
				} `json:"data"`
			}
			require.NoError(t, json.Unmarshal(e.Body, &b))
			for _, it := range b.Data.Items {
				idents[it.ChannelIdentifier] = true
			}
		}
		if e.Path == "/chatapp/contacts/lookup" {
			lookedUp++
			assert.True(t, idents[e.Query.Get("phone_number")], "the looked-up phone %s is a listed identifier", e.Query.Get("phone_number"))
			assert.Equal(t, 200, e.Status)
		}
	}
	assert.Positive(t, lookedUp)
	// A pseudonymised recording still makes a seed a fake loads.
	seed, _, err := conformance.SeedFromRecording(bytes.NewReader(recording))
	require.NoError(t, err)
	dst := fake.New(t, fake.WithSeed(seed))
	rep, err := conformance.Replay(t.Context(), bytes.NewReader(recording), conformance.ReplayConfig{BaseURL: dst.URL(), APIKey: dst.APIKey(), Pace: -1})
	require.NoError(t, err)
	assert.Empty(t, rep.Differences)
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

// TestRecorderTransportRecordsFiles: as a transport, the recorder sees the
// download of a file and records it by size and SHA-256; a replay fetches
// the file at the address the replayed attachment answer gives.
func TestRecorderTransportRecordsFiles(t *testing.T) {
	s := frozenDemo(t)
	var buf bytes.Buffer
	rec := conformance.NewRecorder(&buf, conformance.RecorderOptions{})
	client := s.Client(convo.WithHTTPClient(&http.Client{Transport: rec.Transport(nil)}))
	var media convo.Message
	for cv, err := range client.Conversations.All(t.Context(), &convo.ListConversationsParams{Status: convo.ConversationAll, Limit: 100}) {
		require.NoError(t, err)
		for m, err := range client.Messages.All(t.Context(), cv.ID, nil) {
			require.NoError(t, err)
			if m.Media != nil && m.Media.Available() && media.MessageID == "" {
				media = m
			}
		}
	}
	require.NotEmpty(t, media.MessageID)
	var file bytes.Buffer
	n, err := client.Attachments.Download(t.Context(), media, &file)
	require.NoError(t, err)
	require.NoError(t, rec.Err())
	entries, err := conformance.ReadRecording(bytes.NewReader(buf.Bytes()))
	require.NoError(t, err)
	last := entries[len(entries)-1]
	require.NotNil(t, last.File, "the download is the last exchange")
	sum := sha256.Sum256(file.Bytes())
	assert.Equal(t, conformance.FileDigest{Size: n, SHA256: hex.EncodeToString(sum[:])}, *last.File)
	assert.Empty(t, last.Body)
	assert.Empty(t, last.Path)
	assert.NotContains(t, last.URL, "?")

	rep, err := conformance.Replay(t.Context(), bytes.NewReader(buf.Bytes()), conformance.ReplayConfig{BaseURL: s.URL(), APIKey: s.APIKey(), Pace: -1, FileDigests: true})
	require.NoError(t, err)
	assert.Empty(t, rep.Differences)
	assert.Empty(t, rep.Notes)
	assert.Equal(t, len(entries), rep.Sent)
}
