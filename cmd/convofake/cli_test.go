package main

import (
	"context"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/convoapi/convo-go/fake"

	"github.com/convoapi/convo-go/internal/netx"
)

// The help goes to stdout, names real placeholders, shows each flag once
// in the --name form and says how --api-key and --clock win over a seed.
func TestHelpShowsPlaceholdersAndPrecedence(t *testing.T) {
	for _, arg := range []string{"-h", "--help"} {
		t.Run(arg, func(t *testing.T) {
			var stdout, stderr syncBuffer
			code := run(context.Background(), []string{arg}, &stdout, &stderr, nil)
			assert.Equal(t, exitOK, code)
			assert.Empty(t, stderr.String(), "help is asked for: it goes to stdout")
			help := strings.Join(strings.Fields(stdout.String()), " ") // unwrapped
			for _, want := range []string{
				"--addr HOST:PORT", "--admin-addr HOST:PORT", "--seed FILE", "--api-key KEY", "--clock CLOCK",
				"--rate-limit N", "--rate-burst N", "--anomaly-cache DURATION", "--journal-limit N",
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

// Every start error exits 2 and says what to try, in flag terms.
func TestStartErrorsExit2WithAHint(t *testing.T) {
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer taken.Close()
	dup := filepath.Join(t.TempDir(), "dup.json")
	require.NoError(t, os.WriteFile(dup, []byte(`{"companies":[{"api_key":"twin-key-1"},{"api_key":"twin-key-1"}]}`), 0o600))
	other := filepath.Join(t.TempDir(), "other.json")
	require.NoError(t, os.WriteFile(other, []byte(`{"companies":[{"api_key":"first-key"},{"api_key":"twin-key-1"}]}`), 0o600))

	for _, tc := range []struct {
		name    string
		args    []string
		want    []string
		notWant string
	}{
		{"port in use", []string{"--addr", taken.Addr().String()},
			[]string{"--addr " + taken.Addr().String(), "address already in use", "try --addr 127.0.0.1:0"}, ""},
		{"admin port in use", []string{"--addr", "127.0.0.1:0", "--admin-addr", taken.Addr().String()},
			[]string{"--admin-addr", "try --admin-addr 127.0.0.1:0"}, ""},
		{"not host:port", []string{"--addr", "nonsense"}, []string{"--addr nonsense", "give host:port"}, ""},
		{"bad seed", []string{"--addr", "127.0.0.1:0", "--seed", "testdata/bad-seed.json"},
			[]string{"testdata/bad-seed.json", "companies[0].conversations[0].messages[0]", `unknown sender "martian"`}, ""},
		{"seed keys shared", []string{"--addr", "127.0.0.1:0", "--seed", dup},
			[]string{"companies[1].api_key: the same API key as companies[0]"}, "twin-key-1"},
		{"--api-key taken by another company", []string{"--addr", "127.0.0.1:0", "--seed", other, "--api-key", "twin-key-1"},
			[]string{"companies[1].api_key: the same API key as companies[0]"}, "twin-key-1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, stderr := runOnce(t, tc.args...)
			assert.Equal(t, exitNoStart, code, stderr)
			for _, w := range tc.want {
				assert.Contains(t, stderr, w)
			}
			if tc.notWant != "" {
				assert.NotContains(t, stderr, tc.notWant, "a key is never printed")
			}
		})
	}
}

func TestListenerAddresses(t *testing.T) {
	for _, tc := range []struct {
		addr     string
		loopback bool
		url      string
	}{
		{"127.0.0.1:8080", true, "http://127.0.0.1:8080"},
		{"127.0.0.2:80", true, "http://127.0.0.2:80"},
		{"[::1]:9", true, "http://[::1]:9"},
		{"0.0.0.0:8080", false, "http://127.0.0.1:8080"},
		{"[::]:8080", false, "http://127.0.0.1:8080"},
		{"192.168.1.10:80", false, "http://192.168.1.10:80"},
	} {
		assert.Equal(t, tc.loopback, netx.IsLoopback(tc.addr), tc.addr)
		assert.Equal(t, tc.url, localURL(tc.addr), tc.addr)
	}
}

// The admin API is never exposed by binding every interface alone.
func TestPlaceAdmin(t *testing.T) {
	for _, tc := range []struct {
		name    string
		cfg     config
		apiAddr string
		want    adminPlace
	}{
		{"loopback", config{}, "127.0.0.1:8080", adminOnAddr},
		{"every interface", config{}, "[::]:8080", adminOff},
		{"every interface, asked", config{adminOnPublic: true}, "[::]:8080", adminOnAddr},
		{"own listener", config{adminAddr: "127.0.0.1:9090"}, "[::]:8080", adminOwnAddr},
		{"own listener, loopback API", config{adminAddr: "127.0.0.1:9090"}, "127.0.0.1:8080", adminOwnAddr},
	} {
		assert.Equal(t, tc.want, placeAdmin(&tc.cfg, tc.apiAddr), tc.name)
	}
}

// With the admin API off (a container's --addr :8080), the API answers and
// /_fake/ says how to turn the admin API on, token or not. No listener:
// the handlers run in memory.
func TestAdminOffBeyondLoopback(t *testing.T) {
	srv, err := fake.NewHandler()
	require.NoError(t, err)
	logger := slog.New(slog.DiscardHandler)
	a := &app{cfg: &config{addr: ":8080"}, logger: logger, srv: srv, place: adminOff,
		adm: newAdmin(srv, testAdminToken, logger)}
	api, adminOnly := a.handlers()
	assert.Nil(t, adminOnly)

	for _, auth := range []string{"", "Bearer " + testAdminToken} {
		rec := httptest.NewRecorder()
		req := httptest.NewRequest(http.MethodGet, "/_fake/clock", nil)
		req.Header.Set("Authorization", auth)
		api.ServeHTTP(rec, req)
		r := response{status: rec.Code, header: rec.Header(), body: rec.Body.Bytes()}
		assertAdminError(t, r, http.StatusNotFound, "admin_not_served")
		assert.Contains(t, r.json(t)["message"], "--admin-addr 127.0.0.1:<port>")
		assert.Contains(t, r.json(t)["message"], "--admin-on-public")
	}
	rec := httptest.NewRecorder()
	req := httptest.NewRequest(http.MethodGet, "/v1/channels", nil)
	req.Header.Set("Authorization", "Bearer "+fake.DefaultAPIKey)
	api.ServeHTTP(rec, req)
	assert.Equal(t, http.StatusOK, rec.Code, "the API is served")

	var out strings.Builder
	a.apiLn = stubListener{"[::]:8080"}
	a.printWhatToUse(&out)
	assert.Contains(t, out.String(), "CONVO_BASE_URL=http://127.0.0.1:8080/v1")
	assert.Contains(t, out.String(), "# admin API: off")
	assert.NotContains(t, out.String(), "CONVOFAKE_ADMIN_URL")
	assert.NotContains(t, out.String(), testAdminToken)
}

// stubListener is a net.Listener that only has an address.
type stubListener struct{ addr string }

func (l stubListener) Accept() (net.Conn, error) { return nil, io.EOF }
func (l stubListener) Close() error              { return nil }
func (l stubListener) Addr() net.Addr {
	ta, _ := net.ResolveTCPAddr("tcp", l.addr)
	return ta
}

// --admin-addr: the admin API on its own listener, and only there.
func TestAdminOnItsOwnAddress(t *testing.T) {
	p := start(t, "--admin-addr", "127.0.0.1:0")
	adminURL := p.printed()["CONVOFAKE_ADMIN_URL"]
	require.NotEmpty(t, adminURL)
	assert.NotEqual(t, p.base+"/_fake", adminURL)
	assert.True(t, strings.HasPrefix(adminURL, "http://127.0.0.1:"), adminURL)

	get := func(url, auth string) response {
		req, err := http.NewRequest(http.MethodGet, url, nil)
		require.NoError(t, err)
		req.Header.Set("Authorization", auth)
		resp, err := http.DefaultClient.Do(req) // not p.client, which validates: the admin-only address answers /v1 outside the API contract
		require.NoError(t, err)
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		return response{status: resp.StatusCode, header: resp.Header, body: b}
	}
	assert.Equal(t, http.StatusOK, get(adminURL+"/clock", "Bearer "+testAdminToken).status)
	assertAdminError(t, get(p.base+"/_fake/clock", "Bearer "+testAdminToken), http.StatusNotFound, "admin_not_served")
	adminBase := strings.TrimSuffix(adminURL, "/_fake")
	assertAdminError(t, get(adminBase+"/v1/channels", "Bearer "+fake.DefaultAPIKey), http.StatusNotFound, "admin_not_served")
	assert.Equal(t, http.StatusOK, get(p.base+"/v1/channels", "Bearer "+fake.DefaultAPIKey).status)
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
				require.Equal(t, http.StatusOK, p.api("/v1/channels", fake.DefaultAPIKey).status)
			}
			assert.Equal(t, float64(tc.want), p.admin(http.MethodGet, "/_fake/requests", "").json(t)["count"])
		})
	}
}

// Which key the server starts with, and what it says about it.
func TestAPIKeyPrecedence(t *testing.T) {
	for _, tc := range []struct {
		name    string
		args    []string
		want    string
		comment bool // "# api key: companies[0].api_key of --seed ..."
	}{
		{"default", nil, fake.DefaultAPIKey, false},
		{"flag", []string{"--api-key", "flag-key"}, "flag-key", false},
		{"seed", []string{"--seed", "testdata/seed.json"}, seedKey, true},
		{"flag wins over seed", []string{"--seed", "testdata/seed.json", "--api-key", "flag-key"}, "flag-key", false},
		{"flag equal to the default still wins", []string{"--seed", "testdata/seed.json", "--api-key", fake.DefaultAPIKey}, fake.DefaultAPIKey, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := start(t, tc.args...)
			assert.Equal(t, tc.want, p.printed()["CONVO_API_KEY"])
			assert.Equal(t, http.StatusOK, p.api("/v1/channels", tc.want).status)
			assert.Equal(t, tc.comment, strings.Contains(p.stdout.String(), "# api key: companies[0].api_key of --seed testdata/seed.json (--api-key overrides it)"))
			assert.NotContains(t, p.stderr.String(), tc.want, "the log never shows a key")
		})
	}
}
