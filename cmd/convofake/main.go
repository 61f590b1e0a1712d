package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net"
	"net/http"
	"net/netip"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/convoapi/convo-go/fake"
)

// Exit codes of run.
const (
	exitOK      = 0
	exitFailure = 1 // the server could not start or stopped on an error
	exitUsage   = 2 // bad flags, bad seed file, refused address
)

// defaultAddr is where convofake listens without --addr.
const defaultAddr = "127.0.0.1:8080"

// shutdownTimeout bounds the graceful shutdown; connections still open after
// it (e.g. a request held by a latency fault) are closed.
const shutdownTimeout = 5 * time.Second

// timeLayout is the timestamp form of the API (DESIGN D18), used by the admin
// API too.
const timeLayout = "2006-01-02T15:04:05.000Z"

func formatTime(t time.Time) string { return t.UTC().Format(timeLayout) }

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr, nil)
	stop()
	os.Exit(code)
}

// config is the parsed command line.
type config struct {
	addr          string
	seedFile      string
	apiKey        string
	apiKeySet     bool
	clock         string
	clockSet      bool
	rateLimit     float64
	rateBurst     int
	anomalyCache  time.Duration
	logFormat     string
	adminToken    string
	adminOnPublic bool
	publicURL     string
}

func parseFlags(args []string, stderr io.Writer) (*config, error) {
	cfg := &config{}
	fs := flag.NewFlagSet("convofake", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&cfg.addr, "addr", defaultAddr, "`host:port` to listen on; a non-loopback address needs --admin-on-public")
	fs.StringVar(&cfg.seedFile, "seed", "", "seed `file` (the fake's JSON seed format) instead of the built-in demo data")
	fs.StringVar(&cfg.apiKey, "api-key", fake.DefaultAPIKey, "API `key` of the demo (first) company; overrides the seed's api_key")
	fs.StringVar(&cfg.clock, "clock", "real", "`clock`: real, frozen (at start) or frozen:<RFC 3339 time>; when given, overrides the seed's \"now\" (without it, a seed with \"now\" freezes the clock there)")
	fs.Float64Var(&cfg.rateLimit, "rate-limit", fake.DefaultRateLimit, "requests per `second` per API key; 0 disables the limit")
	fs.IntVar(&cfg.rateBurst, "rate-burst", 0, "bucket `size` of the rate limit (default: the rate rounded up)")
	fs.DurationVar(&cfg.anomalyCache, "anomaly-cache", fake.DefaultAnomalyCacheTTL, "how long an anomaly report stays cached per company and bucket (`duration`; 0 disables)")
	fs.StringVar(&cfg.logFormat, "log-format", "text", "request log `format` on stderr: text or json")
	fs.StringVar(&cfg.adminToken, "admin-token", "", "bearer `token` of the admin API under /_fake/ (default: random, printed at start)")
	fs.BoolVar(&cfg.adminOnPublic, "admin-on-public", false, "allow a non-loopback --addr; the admin API is then reachable from the network")
	fs.StringVar(&cfg.publicURL, "public-url", "", "`URL` (scheme://host[:port]) of the temporary attachment URLs (default: the listening address)")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "Usage: convofake [flags]\n\nServes the fake messaging API on loopback, with demo data, a request log and an admin API under /_fake/.\n\nFlags:\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	fs.Visit(func(f *flag.Flag) {
		switch f.Name {
		case "api-key":
			cfg.apiKeySet = true
		case "clock":
			cfg.clockSet = true
		}
	})
	switch {
	case cfg.logFormat != "text" && cfg.logFormat != "json":
		return nil, fmt.Errorf("--log-format: %q is neither text nor json", cfg.logFormat)
	case cfg.apiKey == "":
		return nil, errors.New("--api-key: empty")
	case cfg.rateLimit < 0 || math.IsNaN(cfg.rateLimit) || math.IsInf(cfg.rateLimit, 0):
		return nil, errors.New("--rate-limit: must be a number ≥ 0")
	case cfg.rateBurst < 0:
		return nil, errors.New("--rate-burst: must be ≥ 0")
	case cfg.anomalyCache < 0:
		return nil, errors.New("--anomaly-cache: must be ≥ 0")
	}
	if _, _, err := parseClock(cfg.clock, time.Time{}); err != nil {
		return nil, fmt.Errorf("--clock: %w", err)
	}
	if cfg.publicURL != "" && !strings.HasPrefix(cfg.publicURL, "http://") && !strings.HasPrefix(cfg.publicURL, "https://") {
		return nil, fmt.Errorf("--public-url: %q does not start with http:// or https://", cfg.publicURL)
	}
	return cfg, nil
}

// parseClock reads --clock: "real", "frozen" (at start) or
// "frozen:<RFC 3339>". It returns frozen and the start of a frozen clock.
func parseClock(s string, start time.Time) (frozen bool, at time.Time, err error) {
	switch {
	case s == "real":
		return false, time.Time{}, nil
	case s == "frozen":
		return true, start, nil
	case strings.HasPrefix(s, "frozen:"):
		t, err := time.Parse(time.RFC3339Nano, strings.TrimPrefix(s, "frozen:"))
		if err != nil {
			return false, time.Time{}, fmt.Errorf("%q: the time after frozen: is not RFC 3339 (e.g. frozen:2026-11-22T10:00:00Z)", s)
		}
		return true, t, nil
	}
	return false, time.Time{}, fmt.Errorf("%q: want real, frozen or frozen:<RFC 3339 time>", s)
}

// checkLoopback refuses an address that would listen beyond the loopback
// interface: an empty host (every interface), an unspecified or routable IP,
// or a name that resolves to any non-loopback address. It runs before
// listening.
func checkLoopback(ctx context.Context, addr string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("--addr %q: %w", addr, err)
	}
	refuse := func(what string) error {
		return fmt.Errorf("--addr %q would listen on %s, not only loopback: the fake API and its admin API (/_fake/, which can replace all data) would be reachable from the network; use 127.0.0.1:<port>, or pass --admin-on-public if that is what you want", addr, what)
	}
	if host == "" {
		return refuse("every interface")
	}
	if ip, err := netip.ParseAddr(host); err == nil {
		if !ip.IsLoopback() {
			return refuse(ip.String())
		}
		return nil
	}
	if strings.EqualFold(host, "localhost") || strings.HasSuffix(strings.ToLower(host), ".localhost") {
		return nil
	}
	ips, err := net.DefaultResolver.LookupNetIP(ctx, "ip", host)
	if err != nil {
		return fmt.Errorf("--addr %q: %w", addr, err)
	}
	for _, ip := range ips {
		if !ip.Unmap().IsLoopback() {
			return refuse(ip.String() + " (" + host + ")")
		}
	}
	return nil
}

// loadStartSeed returns the seed loaded at start: the --seed file, or the
// fake's demo data. Errors name the file, the JSON path and the reason.
func loadStartSeed(cfg *config) (*fake.Seed, error) {
	if cfg.seedFile == "" {
		return fake.DemoSeed(), nil
	}
	f, err := os.Open(cfg.seedFile)
	if err != nil {
		return nil, fmt.Errorf("--seed: %w", err)
	}
	defer f.Close()
	seed, err := fake.LoadSeed(f)
	if err != nil {
		return nil, fmt.Errorf("--seed %s: %w", cfg.seedFile, err)
	}
	return seed, nil
}

func randomToken() string {
	b := make([]byte, 24)
	_, _ = rand.Read(b) // crypto/rand.Read never fails (Go 1.24+)
	return hex.EncodeToString(b)
}

func newLogger(format string, w io.Writer) *slog.Logger {
	if format == "json" {
		return slog.New(slog.NewJSONHandler(w, nil))
	}
	return slog.New(slog.NewTextHandler(w, nil))
}

// run is the whole program: it parses args, serves until ctx ends and
// returns the exit code. ready, when not nil, is called with the listening
// address (host:port) once the server accepts connections.
func run(ctx context.Context, args []string, stdout, stderr io.Writer, ready func(addr string)) int {
	cfg, err := parseFlags(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return exitOK
	}
	if err != nil {
		fmt.Fprintf(stderr, "convofake: %v\n", err)
		return exitUsage
	}
	logger := newLogger(cfg.logFormat, stderr)
	fail := func(code int, format string, a ...any) int {
		fmt.Fprintf(stderr, "convofake: "+format+"\n", a...)
		return code
	}

	if !cfg.adminOnPublic {
		if err := checkLoopback(ctx, cfg.addr); err != nil {
			return fail(exitUsage, "refusing to start: %v", err)
		}
	}
	seed, err := loadStartSeed(cfg)
	if err != nil {
		return fail(exitUsage, "%v", err)
	}
	if cfg.apiKeySet {
		if len(seed.Companies) == 0 {
			seed.Companies = []fake.CompanySeed{{}}
		}
		seed.Companies[0].APIKey = cfg.apiKey
	}
	// The clock: --clock when given, else frozen at the seed's now when it
	// has one, else real.
	var clock *fake.Clock
	if cfg.clockSet || seed.Now == nil {
		frozen, at, _ := parseClock(cfg.clock, time.Now().UTC().Truncate(time.Second))
		if frozen {
			clock = fake.NewManualClock(at)
		} else {
			clock = fake.NewRealClock()
		}
		seed.Now = nil
	} else {
		clock = fake.NewManualClock(*seed.Now)
	}
	startNow := clock.Now()

	ln, err := net.Listen("tcp", cfg.addr)
	if err != nil {
		return fail(exitFailure, "%v", err)
	}
	defer ln.Close()
	addr := ln.Addr().String()
	publicURL := cfg.publicURL
	if publicURL == "" {
		if ap, err := netip.ParseAddrPort(addr); err == nil && !ap.Addr().IsUnspecified() {
			publicURL = "http://" + addr
		}
		// Unspecified (0.0.0.0, ::): the fake derives it from each request's Host.
	}
	burst := cfg.rateBurst
	if burst == 0 {
		burst = max(1, int(math.Ceil(cfg.rateLimit)))
	}
	adminToken := cfg.adminToken
	if adminToken == "" {
		adminToken = randomToken()
	}

	srv, err := fake.NewHandler(
		fake.WithClock(clock),
		fake.WithAPIKey(cfg.apiKey),
		fake.WithSeed(seed),
		fake.WithRateLimit(cfg.rateLimit, burst),
		fake.WithAnomalyCacheTTL(cfg.anomalyCache),
		fake.WithPublicURL(publicURL),
		fake.WithLogger(logger),
	)
	if err != nil {
		if cfg.seedFile != "" {
			return fail(exitUsage, "--seed %s: %v", cfg.seedFile, err)
		}
		return fail(exitUsage, "%v", err)
	}
	// What POST /_fake/reset goes back to: the start seed with the start key.
	if len(seed.Companies) == 0 {
		seed.Companies = []fake.CompanySeed{{}}
	}
	seed.Companies[0].APIKey = srv.APIKey()

	adm := newAdmin(srv, adminToken, seed, startNow)
	httpSrv := &http.Server{
		Handler:           logRequests(logger, withOpenAPI(route(srv.Handler(), adm))),
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       2 * time.Minute,
		ErrorLog:          slog.NewLogLogger(logger.Handler(), slog.LevelWarn),
	}

	base := publicURL
	if base == "" {
		base = "http://" + addr
	}
	clockText := "real"
	if clock.Manual() {
		clockText = "frozen at " + formatTime(clock.Now()) + " (move it with POST /_fake/clock)"
	}
	// Printed on stdout, never logged: a shell can source these lines.
	fmt.Fprintf(stdout, "# convofake: the fake messaging API is listening\n")
	fmt.Fprintf(stdout, "CONVO_BASE_URL=%s/v1\n", base)
	fmt.Fprintf(stdout, "CONVO_API_KEY=%s\n", srv.APIKey())
	fmt.Fprintf(stdout, "CONVOFAKE_ADMIN_URL=%s/_fake\n", base)
	fmt.Fprintf(stdout, "CONVOFAKE_ADMIN_TOKEN=%s\n", adminToken)
	fmt.Fprintf(stdout, "# clock: %s\n", clockText)
	fmt.Fprintf(stdout, "# try: curl -H \"Authorization: Bearer $CONVO_API_KEY\" $CONVO_BASE_URL/channels\n")

	serveErr := make(chan error, 1)
	go func() { serveErr <- httpSrv.Serve(ln) }()
	logger.Info("convofake started", "addr", addr)
	if ready != nil {
		ready(addr)
	}

	select {
	case err := <-serveErr:
		return fail(exitFailure, "%v", err)
	case <-ctx.Done():
	}
	logger.Info("convofake shutting down")
	sctx, cancel := context.WithTimeout(context.Background(), shutdownTimeout)
	defer cancel()
	if err := httpSrv.Shutdown(sctx); err != nil {
		logger.Warn("graceful shutdown timed out; closing connections", "error", err)
		_ = httpSrv.Close()
	}
	<-serveErr // Serve returns http.ErrServerClosed once Shutdown starts
	return exitOK
}

// route sends /_fake and /_fake/... to the admin API and everything else
// (/v1, /api/v1, /_files/) to the fake.
func route(api http.Handler, admin http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/_fake" || strings.HasPrefix(r.URL.Path, "/_fake/") {
			admin.ServeHTTP(w, r)
			return
		}
		api.ServeHTTP(w, r)
	})
}
