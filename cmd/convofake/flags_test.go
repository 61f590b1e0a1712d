package main

import (
	"context"
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/convoapi/convo-go"
	"github.com/convoapi/convo-go/fake"
	"github.com/convoapi/convo-go/internal/testkit"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The help goes to stdout, names real placeholders, shows each flag once
// in the --name form and says how --api-key and --clock win over a seed.
func TestHelpShowsPlaceholdersAndPrecedence(t *testing.T) {
	for _, arg := range []string{"-h", "--help"} {
		t.Run(arg, func(t *testing.T) {
			var stdout, stderr testkit.Buffer
			code := run(context.Background(), []string{arg}, &stdout, &stderr, nil)
			assert.Equal(t, exitOK, code)
			assert.Empty(t, stderr.String(), "help is asked for: it goes to stdout")
			help := strings.Join(strings.Fields(stdout.String()), " ") // unwrapped
			for _, want := range []string{
				"--addr HOST:PORT", "--admin-addr HOST:PORT", "--seed FILE", "--api-key KEY", "--clock CLOCK",
				"--rate-limit N", "--rate-burst N", "--rate-limiter KIND", "--rate-window DURATION", "--anomaly-cache DURATION", "--journal-limit N",
				"--journal-bytes SIZE", "--log-format FORMAT", "--admin-token TOKEN", "--public-url URL",
				"Given, it wins over the seed file's key", "Without this flag: the --seed file's companies[0].api_key",
				"Given, it wins over the seed file's \"now\"", "Exit codes:",
			} {
				assert.Contains(t, help, want)
			}
			for _, wrong := range []string{"-rate-limit second", "rate-limit float", "overrides the seed's api_key"} {
				assert.NotContains(t, help, wrong)
			}
			assert.Equal(t, 1, strings.Count(stdout.String(), "  --rate-limit "), "each flag once")
		})
	}
}

// A bad flag or value is reported once, on stderr, with where to look, and
// exits 2.
func TestBadFlagReportedOnce(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--no-such-flag"}, "flag provided but not defined: -no-such-flag"},
		{[]string{"--rate-limit", "lots"}, `invalid value "lots" for flag -rate-limit`},
		{[]string{"--rate-limit", "-1"}, "--rate-limit: must be a number ≥ 0"},
		{[]string{"--rate-limiter", "leaky"}, `--rate-limiter: "leaky" is not bucket, fixed or sliding`},
		{[]string{"--rate-limiter", "fixed", "--rate-window", "0"}, "--rate-window: must be > 0"},
		{[]string{"--rate-limiter", "sliding", "--rate-window", "-1s"}, "--rate-window: must be > 0"},
		{[]string{"--rate-limiter", "fixed", "--rate-limit", "2.5"}, "--rate-limit: with --rate-limiter fixed, a whole number of requests per --rate-window"},
		{[]string{"--rate-limiter", "sliding", "--rate-burst", "5"}, "--rate-burst: only for --rate-limiter bucket"},
		{[]string{"--rate-window", "10s"}, "--rate-window: only for --rate-limiter fixed or sliding"},
		{[]string{"--log-format", "xml"}, `--log-format: "xml" is neither text nor json`},
		{[]string{"--clock", "sundial"}, `--clock: "sundial": want real, frozen`},
		{[]string{"--clock", "frozen:yesterday"}, "is not RFC 3339"},
		{[]string{"--anomaly-cache", "-1s"}, "--anomaly-cache: must be ≥ 0"},
		{[]string{"--journal-limit", "-1"}, "--journal-limit: must be ≥ 0"},
		{[]string{"--journal-bytes", "lots"}, `"lots" is not a size`},
		{[]string{"--journal-bytes", "-5"}, `"-5" is not a size`},
		{[]string{"--api-key", ""}, "--api-key: empty"},
		{[]string{"--public-url", "ftp://x"}, "--public-url"},
		{[]string{"--admin-addr", "127.0.0.1:0", "--admin-on-public"}, "give one"},
		{[]string{"--addr", "127.0.0.1:18080", "--admin-addr", "127.0.0.1:18080"}, "the same as --addr"},
		{[]string{"extra-argument"}, `unexpected argument "extra-argument"`},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			code, stderr := runOnce(t, append([]string{"--addr", "127.0.0.1:0"}, tc.args...)...)
			assert.Equal(t, exitNoStart, code)
			assert.Equal(t, 1, strings.Count(stderr, tc.want), "reported once:\n%s", stderr)
			assert.Equal(t, 1, strings.Count(stderr, "convofake: "), "one error line:\n%s", stderr)
			assert.Contains(t, stderr, "convofake -h lists the flags")
			assert.NotContains(t, stderr, "Usage:", "no help dump on a mistake")
		})
	}
}

func TestByteSizeFlag(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int64
		ok   bool
	}{
		{"0", 0, true},
		{"1024", 1024, true},
		{"32MiB", 32 << 20, true},
		{"512kib", 512 << 10, true},
		{"1GiB", 1 << 30, true},
		{"2MB", 2e6, true},
		{"7B", 7, true},
		{" 3 KiB ", 3 << 10, true},
		{"", 0, false},
		{"MiB", 0, false},
		{"-1", 0, false},
		{"1.5MiB", 0, false},
		{"lots", 0, false},
		{"9999999999GiB", 0, false},
	} {
		var b byteSize
		err := b.Set(tc.in)
		if !tc.ok {
			assert.Error(t, err, "%q", tc.in)
			continue
		}
		require.NoError(t, err, "%q", tc.in)
		assert.Equal(t, tc.want, int64(b), "%q", tc.in)
	}
}

// --journal-limit bounds the journal; --journal-bytes is parsed and
// checked (its default is the fake's 32 MiB).
func TestJournalFlags(t *testing.T) {
	cfg, err := parseFlags([]string{"--journal-bytes", "1MiB", "--journal-limit", "5"}, io.Discard)
	require.NoError(t, err)
	assert.Equal(t, byteSize(1<<20), cfg.journalBytes)
	assert.Equal(t, 5, cfg.journalLimit)
	cfg, err = parseFlags(nil, io.Discard)
	require.NoError(t, err)
	assert.Equal(t, byteSize(fake.DefaultJournalBytes), cfg.journalBytes)
	assert.Equal(t, fake.DefaultJournalLimit, cfg.journalLimit)

	for _, tc := range []struct {
		flag, value string
		want        int
	}{{"--journal-limit", "2", 2}, {"--journal-limit", "0", 0}, {"--journal-bytes", "0", 0}} {
		t.Run(tc.flag+" "+tc.value, func(t *testing.T) {
			p := start(t, tc.flag, tc.value)
			for range 3 {
				require.Equal(t, http.StatusOK, p.api("/v1/channels", fake.DefaultAPIKey).Status)
			}
			assert.Equal(t, float64(tc.want), p.admin(http.MethodGet, "/_fake/requests", "").JSON(t)["count"])
		})
	}
}

func TestSeedFileAndAPIKeyFlags(t *testing.T) {
	p := start(t, "--seed", "testdata/seed.json")
	assert.Contains(t, p.stdout.String(), "# clock: frozen at 2026-11-22T10:00:00.000Z", "a seed with now freezes the clock")
	r := p.api("/v1/conversations", seedKey)
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	assert.JSONEq(t, `{"success":true,"data":{"items":[{
		"id":"f0000000-0000-4000-8000-000000000001","contact_id":"c0000000-0000-4000-8000-000000000001",
		"channel":"chatapp","channel_account_id":"a0000000-0000-4000-8000-000000000001",
		"channel_identifier":"5511987654321","status":"open","assigned":false,"unread_count":2,
		"last_inbound_at":"2026-11-22T09:00:00.000Z","last_message_at":"2026-11-22T09:00:00.000Z",
		"created_at":"2026-11-22T08:00:00.000Z"}],"next_cursor":null},
		"timestamp":"2026-11-22T10:00:00.000Z"}`, string(r.Body))

	q := start(t, "--seed", "testdata/seed.json", "--clock", "frozen:2027-01-02T03:04:05Z")
	clock := q.admin(http.MethodGet, "/_fake/clock", "")
	assert.JSONEq(t, `{"now":"2027-01-02T03:04:05.000Z","frozen":true}`, string(clock.Body), "--clock overrides the seed's now")
}

func TestRateLimitFlag(t *testing.T) {
	// A bucket of one token, refilled at one per second: the second call,
	// right after the first, is 429.
	p := start(t, "--seed", "testdata/seed.json", "--rate-limit", "1")
	assert.Equal(t, http.StatusOK, p.api("/v1/channels", seedKey).Status)
	r := p.api("/v1/channels", seedKey)
	assert.Equal(t, http.StatusTooManyRequests, r.Status)
	assert.Equal(t, "RATE_LIMITED", r.JSON(t)["message"].(map[string]any)["error"])

	q := start(t, "--seed", "testdata/seed.json", "--rate-limit", "0")
	for range 30 {
		require.Equal(t, http.StatusOK, q.api("/v1/channels", seedKey).Status)
	}
}

// --rate-limiter fixed and sliding allow --rate-limit requests per
// --rate-window, and their 429 asks for the rest of the window: on a clock
// frozen at 10:00:00, the fixed minute ends at 10:01:00; the sliding 10 s
// end 10 s after the first request.
func TestRateLimiterFlag(t *testing.T) {
	for _, tc := range []struct {
		args       []string
		admitted   int
		retryAfter string
	}{
		{[]string{"--rate-limiter", "fixed", "--rate-limit", "3", "--rate-window", "1m"}, 3, "60"},
		{[]string{"--rate-limiter", "sliding", "--rate-limit", "2", "--rate-window", "10s"}, 2, "10"},
		{[]string{"--rate-limiter", "bucket", "--rate-limit", "0.5", "--rate-burst", "2"}, 2, "2"},
		{[]string{"--rate-limit", "4"}, 4, "1"}, // bucket by default, burst = the rate
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			p := start(t, append([]string{"--seed", "testdata/seed.json", "--clock", "frozen:2026-11-22T10:00:00Z"}, tc.args...)...)
			for i := range tc.admitted {
				require.Equal(t, http.StatusOK, p.api("/v1/channels", seedKey).Status, "request %d", i)
			}
			r := p.api("/v1/channels", seedKey)
			require.Equal(t, http.StatusTooManyRequests, r.Status)
			assert.Equal(t, tc.retryAfter, r.Header.Get("Retry-After"))
		})
	}
}

func TestAnomalyCacheFlag(t *testing.T) {
	// The contact wrote 3h59m ago: one minute short of the 4-hour threshold.
	seed := `{"now":"2026-11-22T10:00:00Z","companies":[{"api_key":"k",
		"channels":[{"ref":"a","channel":"chatapp"}],
		"contacts":[{"ref":"c","channel":"a","phone":"5511987654321"}],
		"conversations":[{"contact":"c","messages":[{"sender":"contact","text":"hi","ago":"3h59m"}]}]}]}`
	for _, tc := range []struct {
		flag string
		want float64 // after two minutes
	}{
		{"5m", 0},  // still the cached report
		{"0", 1},   // no cache
		{"90s", 1}, // expired
	} {
		t.Run(tc.flag, func(t *testing.T) {
			p := start(t, "--clock", "frozen", "--anomaly-cache", tc.flag)
			require.Equal(t, http.StatusOK, p.admin(http.MethodPost, "/_fake/seed", seed).Status)
			assert.Equal(t, float64(0), anomalyCount(t, p, "k"))
			require.Equal(t, http.StatusOK, p.admin(http.MethodPost, "/_fake/clock", `{"advance":"2m"}`).Status)
			assert.Equal(t, tc.want, anomalyCount(t, p, "k"))
		})
	}
}

// --version prints the version on stdout and exits 0, starting nothing.
func TestVersionFlag(t *testing.T) {
	var stdout, stderr strings.Builder
	code := run(context.Background(), []string{"--version", "--addr", "127.0.0.1:0"}, &stdout, &stderr, func(addr string) {
		t.Errorf("it started on %s", addr)
	})
	assert.Equal(t, exitOK, code)
	assert.Regexp(t, `^convofake `+regexp.QuoteMeta(convo.Version)+` .*go1\.\d+`, stdout.String())
	assert.Empty(t, stderr.String())
}
