package conformance_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/convoapi/convo-go"
	"github.com/convoapi/convo-go/conformance"
	"github.com/convoapi/convo-go/fake"
	"github.com/convoapi/convo-go/internal/conformancetest"
	"github.com/convoapi/convo-go/internal/testkit"
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

// recordThrough records a whole read of the demo data served with key,
// through a proxy that alters each answer as alt says.
func recordThrough(t *testing.T, key string, alt conformancetest.Alteration) []byte {
	t.Helper()
	s := demoHandler(t, fake.WithAPIKey(key), fake.WithClock(fake.NewManualClock(recordStart)))
	ts := conformancetest.Proxy(t, s.Handler(), alt)
	var buf bytes.Buffer
	rec := conformance.NewRecorder(&buf, conformance.RecorderOptions{})
	client, err := convo.NewClient(convo.WithBaseURL(ts.URL+"/v1"), convo.WithAPIKey(key), convo.WithMiddleware(rec.Middleware))
	require.NoError(t, err)
	conformancetest.RecordEverything(t, client, recordStart)
	require.NoError(t, rec.Err())
	return buf.Bytes()
}

// TestRecorderRemovesTheKey records a whole read with keys that need
// escaping, through a proxy that echoes the key in every escaping into
// each answer: the recording holds none of them.
func TestRecorderRemovesTheKey(t *testing.T) {
	for _, key := range testkit.Keys {
		t.Run(key, func(t *testing.T) {
			out := string(recordThrough(t, key, conformancetest.Alteration{Resp: conformancetest.EchoKey(key), Header: conformancetest.EchoKeyHeaders(key)}))
			require.Contains(t, out, "[REDACTED]", "the echoed key was there to remove")
			for name, esc := range testkit.Escapings {
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
	// The tag is sought as a JSON string: three letters alone come up now
	// and then inside a random cursor.
	for _, secret := range []string{"5511987654321", "Ana Souza", "ana.souza@example.com", "hasn't arrived", "tracking.png", `"vip"`} {
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

// TestRecorderTransportRecordsFiles: as a transport, the recorder sees the
// download of a file and records it by size and SHA-256; a replay fetches
// the file at the address the replayed attachment answer gives. A
// pseudonymised recording holds no temporary file address (a bearer
// secret while it lives), and still replays.
func TestRecorderTransportRecordsFiles(t *testing.T) {
	for _, pseudonymise := range []bool{false, true} {
		t.Run(fmt.Sprintf("pseudonymise=%v", pseudonymise), func(t *testing.T) { recordAFile(t, pseudonymise) })
	}
}

func recordAFile(t *testing.T, pseudonymise bool) {
	s := frozenDemo(t)
	var buf bytes.Buffer
	rec := conformance.NewRecorder(&buf, conformance.RecorderOptions{Pseudonymise: pseudonymise})
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
	if pseudonymise {
		assert.NotContains(t, buf.String(), "/_files/")
		assert.NotContains(t, buf.String(), s.URL())
	} else {
		assert.Contains(t, buf.String(), "/_files/", "the control: the address is there to replace")
	}

	target := s
	if pseudonymise { // replayed against a fake of its own seed
		seed, _, err := conformance.SeedFromRecording(bytes.NewReader(buf.Bytes()))
		require.NoError(t, err)
		target = fake.New(t, fake.WithSeed(seed))
	}
	rep, err := conformance.Replay(t.Context(), bytes.NewReader(buf.Bytes()), conformance.ReplayConfig{BaseURL: target.URL(), APIKey: target.APIKey(), Pace: -1, FileDigests: !pseudonymise})
	require.NoError(t, err)
	assert.Empty(t, rep.Differences)
	assert.Empty(t, rep.Notes)
	assert.Equal(t, len(entries), rep.Sent)
}
