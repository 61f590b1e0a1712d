package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/convoapi/convo-go"
	"github.com/convoapi/convo-go/fake"
	"github.com/convoapi/convo-go/internal/conformancetest"
	"github.com/convoapi/convo-go/internal/testkit"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var recordStart = time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)

// runningService is a fake whose frozen clock runs on by step before each
// API request, as the service's clock runs while a recording is made.
func runningService(t *testing.T, seed *fake.Seed, step time.Duration, opts ...fake.Option) *fake.Server {
	clock := fake.NewManualClock(recordStart)
	tick := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if strings.Contains(r.URL.Path, "/v1/") {
				clock.Advance(step)
			}
			next.ServeHTTP(w, r)
		})
	}
	return fake.New(t, append([]fake.Option{fake.WithSeed(seed), fake.WithClock(clock), fake.WithHandlerMiddleware(tick)}, opts...)...)
}

// startRecord runs convocheck record against upstream until the returned
// stop is called; stop returns the exit code, stdout and stderr.
func startRecord(t *testing.T, args ...string) (base string, stop func() (int, string, string)) {
	ctx, cancel := context.WithCancel(t.Context())
	addr := make(chan string, 1)
	done := make(chan int, 1)
	var out, errb bytes.Buffer
	go func() {
		done <- runRecord(ctx, append([]string{"--listen", "127.0.0.1:0"}, args...), &out, &errb, func(a string) { addr <- a })
	}()
	select {
	case a := <-addr:
		base = "http://" + a + "/v1"
	case code := <-done:
		t.Fatalf("convocheck record exited %d: %s", code, errb.String())
	}
	return base, func() (int, string, string) {
		cancel()
		code := <-done
		return code, out.String(), errb.String()
	}
}

// rawRead reads as a client in another language does, with plain HTTP
// requests (the curl of the README): the channel list, every conversation
// page, the messages of every conversation (full) or of the first one with
// messages (partial), each attachment and its file, and the anomaly report.
func rawRead(t *testing.T, base, key string, full bool) {
	hc := &http.Client{}
	get := func(target string) map[string]any {
		req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, target, nil)
		require.NoError(t, err)
		if strings.HasPrefix(target, base) {
			req.Header.Set("Authorization", "Bearer "+key)
		}
		resp, err := hc.Do(req)
		require.NoError(t, err)
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		require.Equal(t, http.StatusOK, resp.StatusCode, "%s: %s", target, b)
		var v map[string]any
		if strings.Contains(resp.Header.Get("Content-Type"), "json") {
			require.NoError(t, json.Unmarshal(b, &v))
		}
		return v
	}
	pages := func(path string, q url.Values, each func(map[string]any)) {
		for {
			body := get(base + path + "?" + q.Encode())
			data, _ := body["data"].(map[string]any)
			items, _ := data["items"].([]any)
			for _, it := range items {
				each(it.(map[string]any))
			}
			next, _ := data["next_cursor"].(string)
			if next == "" {
				return
			}
			q.Set("cursor", next)
		}
	}
	get(base + "/channels")
	var convs []string
	pages("/conversations", url.Values{"status": {"all"}, "limit": {"50"}}, func(cv map[string]any) {
		if cv["last_message_at"] != nil {
			convs = append(convs, cv["id"].(string))
		}
	})
	if !full {
		convs = convs[:1]
	}
	for _, id := range convs {
		q := url.Values{"limit": {"20"}}
		if full {
			q.Set("since", recordStart.AddDate(-1, 0, 0).Format(time.RFC3339))
		}
		pages("/conversations/"+id+"/messages", q, func(m map[string]any) {
			if md, ok := m["media"].(map[string]any); ok && md["media_status"] == "available" && full {
				att := get(base + "/attachments/" + md["media_id"].(string))
				get(att["data"].(map[string]any)["url"].(string))
			}
		})
	}
	get(base + "/conversations/anomalies?include=unassigned,automation_only")
}

// TestRecordSeedReplay is the acceptance of the recording workflow from
// any language: full and partial reads, by plain HTTP requests and by the
// Go SDK, of the demo data and of a 3,000-record seed, through convocheck
// record, then convocheck seed, a fake started from that seed, and
// convocheck --replay (moving the fake's clock through an admin API as
// convofake's): no difference, and no form of the key in any recording.
func TestRecordSeedReplay(t *testing.T) {
	seeds := []struct {
		name string
		seed func() *fake.Seed
	}{{"demo", fake.DemoSeed}, {"generated", func() *fake.Seed { return conformancetest.Generate(3000) }}}
	clients := []struct {
		name string
		read func(t *testing.T, base, key string, full bool)
	}{
		{"http", rawRead},
		{"sdk", func(t *testing.T, base, key string, full bool) {
			c, err := convo.NewClient(convo.WithBaseURL(base), convo.WithAPIKey(key))
			require.NoError(t, err)
			if full {
				conformancetest.RecordEverything(t, c, recordStart)
			} else {
				conformancetest.RecordPartial(t, c)
			}
		}},
	}
	const key = "sk_live_4eC39HqLyjWDarjtT1zdp7dc"
	for _, sd := range seeds {
		for _, cl := range clients {
			for _, full := range []bool{true, false} {
				name := sd.name + "/" + cl.name + "/partial"
				if full {
					name = sd.name + "/" + cl.name + "/full"
				}
				t.Run(name, func(t *testing.T) {
					src := runningService(t, sd.seed(), 33*time.Millisecond, fake.WithAPIKey(key), fake.WithRateLimit(0, 0))
					file := filepath.Join(t.TempDir(), "run.jsonl")
					base, stop := startRecord(t, "--upstream", src.URL(), "--out", file)
					cl.read(t, base, key, full)
					code, out, errb := stop()
					require.Equal(t, 0, code, errb)
					assert.Contains(t, out, "CONVO_BASE_URL="+base)
					recording, err := os.ReadFile(file)
					require.NoError(t, err)
					for _, form := range testkit.Forms(key) {
						require.NotContains(t, string(recording), form)
					}

					var seedJSON, notes bytes.Buffer
					require.Equal(t, 0, runSeed([]string{file}, &seedJSON, &notes), notes.String())
					seed, err := fake.LoadSeed(&seedJSON)
					require.NoError(t, err)
					dst := fake.New(t, fake.WithSeed(seed))
					admin := adminClock(t, dst)
					t.Setenv("CONVOFAKE_ADMIN_URL", admin.URL)
					t.Setenv("CONVOFAKE_ADMIN_TOKEN", "admin-token")
					var rep, rerr bytes.Buffer
					code = run(t.Context(), []string{"--replay", file, "--base-url", dst.URL(), "--api-key", dst.APIKey(), "--pace", "0", "--max-requests", "100000"}, &rep, &rerr)
					lines := strings.Split(strings.TrimSpace(rep.String()), "\n")
					assert.Equal(t, 0, code, "%s\n%s", rep.String(), rerr.String())
					t.Logf("%s", lines[len(lines)-1])
					assert.Contains(t, lines[len(lines)-1], ": 0 differences")
					assert.NotContains(t, rep.String(), "note:", "every exchange was sent")
					if full && cl.name == "http" {
						assert.Contains(t, string(recording), `"file":{"size":`, "the downloads passed through the proxy")
					}
				})
			}
		}
	}
}

// adminClock serves POST /clock {"set": …} as convofake's admin API does,
// moving s's clock, for the admin token "admin-token".
func adminClock(t *testing.T, s *fake.Server) *httptest.Server {
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body struct {
			Set string `json:"set"`
		}
		at, err := time.Time{}, json.NewDecoder(r.Body).Decode(&body)
		if err == nil {
			at, err = time.Parse(time.RFC3339Nano, body.Set)
		}
		switch {
		case r.Header.Get("Authorization") != "Bearer admin-token":
			w.WriteHeader(http.StatusUnauthorized)
		case r.Method != http.MethodPost || r.URL.Path != "/clock" || err != nil:
			w.WriteHeader(http.StatusBadRequest)
		default:
			s.Clock().Set(at)
			w.WriteHeader(http.StatusOK)
		}
	}))
	t.Cleanup(ts.Close)
	return ts
}

// TestRecordFlags: bad flags of convocheck record exit 2 and say why.
func TestRecordFlags(t *testing.T) {
	tests := []struct {
		name string
		args []string
		err  string
	}{
		{"no upstream", []string{"--out", "x"}, "--upstream is required"},
		{"no out", []string{"--upstream", "https://api.example.com/v1"}, "--out is required"},
		{"no /v1", []string{"--upstream", "https://api.example.com", "--out", "x"}, "does not end with /v1"},
		{"plain http beyond loopback", []string{"--upstream", "http://api.example.com/v1", "--out", "x"}, "in the clear"},
		{"unexpected argument", []string{"--upstream", "https://api.example.com/v1", "--out", "x", "more"}, "unexpected argument"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			code := run(t.Context(), append([]string{"record"}, tt.args...), &out, &errb)
			assert.Equal(t, 2, code)
			assert.Contains(t, errb.String(), tt.err)
		})
	}
}

// TestRecordStopLeavesACompleteRecording: a stop (SIGINT or SIGTERM end
// the context) while an exchange is under way waits for it: the recording
// ends with its whole line.
func TestRecordStopLeavesACompleteRecording(t *testing.T) {
	arrived, release := make(chan struct{}), make(chan struct{})
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		close(arrived)
		<-release
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"success":true,"timestamp":"2026-11-26T12:00:00.000Z","data":{"items":[]}}`)
	}))
	t.Cleanup(upstream.Close)
	file := filepath.Join(t.TempDir(), "run.jsonl")
	base, stop := startRecord(t, "--upstream", upstream.URL+"/v1", "--out", file)
	answered := make(chan int, 1)
	go func() {
		resp, err := http.Get(base + "/channels")
		if err != nil {
			answered <- 0
			return
		}
		resp.Body.Close()
		answered <- resp.StatusCode
	}()
	<-arrived
	stopped := make(chan int, 1)
	go func() { code, _, _ := stop(); stopped <- code }()
	close(release)
	assert.Equal(t, http.StatusOK, <-answered)
	assert.Equal(t, 0, <-stopped)
	recording, err := os.ReadFile(file)
	require.NoError(t, err)
	lines := strings.Split(strings.TrimSuffix(string(recording), "\n"), "\n")
	require.Len(t, lines, 2, "the header and the exchange")
	assert.True(t, json.Valid([]byte(lines[1])))
	assert.Contains(t, lines[1], `"path":"/channels"`)
}

func TestVersionAndSeedArguments(t *testing.T) {
	var out, errb bytes.Buffer
	assert.Equal(t, 0, run(t.Context(), []string{"--version"}, &out, &errb))
	assert.True(t, strings.HasPrefix(out.String(), "convocheck "+convo.Version), out.String())
	out.Reset()
	assert.Equal(t, 2, run(t.Context(), []string{"seed"}, &out, &errb))
	assert.Contains(t, errb.String(), "give one recording FILE")
	errb.Reset()
	assert.Equal(t, 2, run(t.Context(), []string{"seed", filepath.Join(t.TempDir(), "missing")}, &out, &errb))
	assert.Contains(t, errb.String(), "no such file")
}

// TestRecordPseudonymises: convocheck record --pseudonymise leaves no
// phone, no text and no temporary file address of the service in the
// recording, and the recording still replays clean against its seed.
func TestRecordPseudonymises(t *testing.T) {
	src := runningService(t, fake.DemoSeed(), time.Millisecond)
	file := filepath.Join(t.TempDir(), "run.jsonl")
	base, stop := startRecord(t, "--upstream", src.URL(), "--out", file, "--pseudonymise", "--salt", "test")
	rawRead(t, base, src.APIKey(), true)
	code, _, errb := stop()
	require.Equal(t, 0, code, errb)
	recording, err := os.ReadFile(file)
	require.NoError(t, err)
	for _, secret := range []string{"/_files/", strings.TrimSuffix(src.URL(), "/v1"), "5511987654321", "Ana Souza", "hasn't arrived", "tracking.png"} {
		assert.NotContains(t, string(recording), secret)
	}
	assert.Contains(t, string(recording), `"file":{"size":`, "the downloads were recorded")

	var seedJSON, notes bytes.Buffer
	require.Equal(t, 0, runSeed([]string{file}, &seedJSON, &notes), notes.String())
	seed, err := fake.LoadSeed(&seedJSON)
	require.NoError(t, err)
	dst := fake.New(t, fake.WithSeed(seed))
	var rep, rerr bytes.Buffer
	code = run(t.Context(), []string{"--replay", file, "--base-url", dst.URL(), "--api-key", dst.APIKey(), "--pace", "0"}, &rep, &rerr)
	assert.Equal(t, 0, code, "%s\n%s", rep.String(), rerr.String())
}

// TestRecordWrites: a write through the proxy reaches the service with its
// JSON body and the caller's key, and the recording holds the body, not
// the key.
func TestRecordWrites(t *testing.T) {
	src := runningService(t, fake.DemoSeed(), time.Millisecond)
	file := filepath.Join(t.TempDir(), "run.jsonl")
	base, stop := startRecord(t, "--upstream", src.URL(), "--out", file)
	body := `{"phone_number_id":"5511940000001","phone_number":"5511900002222","name":"Proxy Test"}`
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, base+"/chatapp/contacts", strings.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("x-api-key", src.APIKey())
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusCreated, resp.StatusCode)
	code, _, errb := stop()
	require.Equal(t, 0, code, errb)
	recording, err := os.ReadFile(file)
	require.NoError(t, err)
	assert.Contains(t, string(recording), `"request_body":{"name":"Proxy Test","phone_number":"5511900002222","phone_number_id":"5511940000001"}`)
	assert.Contains(t, string(recording), `"auth":"x-api-key"`)
	assert.NotContains(t, string(recording), src.APIKey())
	assert.Equal(t, 1, src.CountRequests(http.MethodPost, "/chatapp/contacts"))
}
