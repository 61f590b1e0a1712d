package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/convoapi/convo-go/fake"
)

// defaultMaxSeedSize is --max-seed-size without the flag: a seed document
// (an export of a large state included) is read whole into memory, so the
// bound is the memory one may give it.
const defaultMaxSeedSize = 1 << 30

// config is the parsed command line.
type config struct {
	addr          string
	adminAddr     string
	adminOnPublic bool
	adminIfToken  bool // --admin-on-public-if-token: adminOnPublic when an admin token was given
	seedFile      string
	stateFile     string
	apiKey        string
	apiKeySet     bool // --api-key was given: it wins over the seed's key
	clock         string
	rateLimit     float64
	rateBurst     int
	rateLimiter   string        // bucket, fixed or sliding
	rateWindow    time.Duration // fixed and sliding: --rate-limit counts per window
	rateSet       struct{ burst, window bool }
	anomalyCache  time.Duration
	journalLimit  int
	journalBytes  byteSize
	maxSeedSize   byteSize
	logFormat     string
	version       bool // --version: print the version and exit
	adminToken    string
	publicURL     string

	// Where a secret came from when not from its flag ("$CONVOFAKE_API_KEY"
	// or "--api-key-file FILE"): such a secret is not printed at start.
	apiKeyFile, apiKeyFrom         string
	adminTokenFile, adminTokenFrom string

	server serverLimits
}

// usageIntro opens the help text.
const usageIntro = `Usage: convofake [flags]

Serves the fake messaging API with demo data, a request log on stderr and an
admin API under /_fake/ (reset, seed, clock, fault rules, request journal).
It prints on stdout, as lines a shell can source, the base URL, the API key
and the admin API's address and token.

Exit codes: 0 after SIGINT or SIGTERM; 1 when the server stops on an error
after it started; 2 when it cannot start (bad flag, bad seed file, address
refused or in use, a --state file held by another process or not writable); 3 after SIGINT or SIGTERM when requests still running
after --shutdown-grace had to be cut.

The API key and the admin token can also come from the environment
(CONVOFAKE_API_KEY, CONVOFAKE_ADMIN_TOKEN) or from a file (--api-key-file,
--admin-token-file), which the process list does not show; a flag wins over
the environment.

Flags:
`

// newFlagSet declares every flag on cfg. The placeholders (the back-quoted
// words) are what the help shows after the flag's name.
func newFlagSet(cfg *config) *flag.FlagSet {
	fs := flag.NewFlagSet("convofake", flag.ContinueOnError)
	cfg.journalBytes = fake.DefaultJournalBytes
	cfg.maxSeedSize = defaultMaxSeedSize
	fs.StringVar(&cfg.addr, "addr", defaultAddr,
		"`HOST:PORT` to listen on (default 127.0.0.1:8080; port 0: any free port, printed at start). "+
			"An address beyond loopback (e.g. :8080 in a container) serves the API there, but not the admin API "+
			"unless --admin-addr or --admin-on-public says where")
	fs.StringVar(&cfg.adminAddr, "admin-addr", "",
		"`HOST:PORT` of a listener of its own for the admin API (/_fake/); the --addr listener then does not serve it. "+
			"Default: the admin API is on --addr when --addr is loopback, else off")
	fs.BoolVar(&cfg.adminOnPublic, "admin-on-public", false,
		"serve the admin API on --addr even when --addr listens beyond loopback (anyone who can reach the port and has the admin token can replace all data)")
	fs.BoolVar(&cfg.adminIfToken, "admin-on-public-if-token", false,
		"serve the admin API on --addr even beyond loopback, but only when an admin token is given (--admin-token, --admin-token-file or $"+envAdminToken+"); "+
			"without one the admin API stays off. The container image's default, so that `docker run -e "+envAdminToken+"=…` turns it on")
	fs.StringVar(&cfg.seedFile, "seed", "",
		"seed `FILE` (the fake's JSON seed format, fake/SEED.md) to start with instead of the built-in demo data")
	fs.StringVar(&cfg.stateFile, "state", "",
		"state `FILE`: loaded at start when it exists (instead of --seed or the demo data), written on SIGINT, SIGTERM and POST /_fake/save "+
			"(atomically: a crash mid-save leaves the previous file whole, and the next start removes its temporary file). It is a seed document, as GET /_fake/seed answers. "+
			"The process holds a lock on it while it runs: a second convofake on the same file exits 2; so does one whose file's directory cannot be written")
	fs.StringVar(&cfg.apiKey, "api-key", "",
		"API `KEY` of the default (first) company. Without this flag: the --seed file's companies[0].api_key when it has one, "+
			"else "+fake.DefaultAPIKey+". Given, it wins over the seed file's key. (POST /_fake/seed with its own companies[0].api_key changes the key later; the answer says so)")
	fs.StringVar(&cfg.clock, "clock", "",
		"the server's `CLOCK`: real, frozen (at the time of start) or frozen:<RFC 3339 time>. "+
			"Without this flag: frozen at the --seed file's \"now\" when it has one, else real. Given, it wins over the seed file's \"now\"")
	fs.Float64Var(&cfg.rateLimit, "rate-limit", fake.DefaultRateLimit,
		"requests allowed per API key, `N`: per second for --rate-limiter bucket, per --rate-window (a whole number) for fixed and sliding "+
			"(default "+strconv.FormatFloat(fake.DefaultRateLimit, 'f', -1, 64)+"); 0 disables the limit")
	fs.IntVar(&cfg.rateBurst, "rate-burst", 0,
		"bucket size of the rate limit, `N` requests (default: --rate-limit rounded up); bucket only")
	fs.StringVar(&cfg.rateLimiter, "rate-limiter", "bucket",
		"the `KIND` of rate limit: bucket (a token bucket: --rate-limit per second, --rate-burst at once), "+
			"fixed (at most --rate-limit in each --rate-window of the clock, windows aligned on it) or "+
			"sliding (at most --rate-limit in any trailing --rate-window) (default bucket). "+
			"Each answers 429 with the whole-second Retry-After its state implies")
	fs.DurationVar(&cfg.rateWindow, "rate-window", time.Second,
		"the window of --rate-limiter fixed and sliding, a `DURATION` such as 1s or 1m (default 1s)")
	fs.DurationVar(&cfg.anomalyCache, "anomaly-cache", fake.DefaultAnomalyCacheTTL,
		"how long an anomaly report stays cached per company and bucket, a `DURATION` such as 5m or 90s (default "+fake.DefaultAnomalyCacheTTL.String()+"); 0 disables the cache")
	fs.IntVar(&cfg.journalLimit, "journal-limit", fake.DefaultJournalLimit,
		"the request journal (GET /_fake/requests) keeps the last `N` requests (default "+strconv.Itoa(fake.DefaultJournalLimit)+"); 0 disables the journal")
	fs.Var(&cfg.journalBytes, "journal-bytes",
		"memory `SIZE` the request journal may use, e.g. 32MiB, 512KiB or a number of bytes (default 32MiB); the oldest requests go first, long bodies are cut. 0 disables the journal")
	fs.Var(&cfg.maxSeedSize, "max-seed-size",
		"the largest seed document convofake reads, a `SIZE` such as 1GiB, 200MB or a number of bytes (default 1GiB): "+
			"the body of POST /_fake/seed and POST /_fake/companies (a larger one is 413 body_too_large), and the --seed and --state files "+
			"(a larger one is refused at start). Whatever GET /_fake/seed writes loads back within it. The other admin bodies are small JSON objects, "+
			"limited to 1MiB")
	fs.StringVar(&cfg.logFormat, "log-format", "text",
		"`FORMAT` of the request log on stderr: text or json (default text)")
	fs.BoolVar(&cfg.version, "version", false, "print the version (the module's, the build's commit when known, the Go version) and exit")
	fs.StringVar(&cfg.adminToken, "admin-token", "",
		"bearer `TOKEN` of the admin API (default: random, printed at start)")
	fs.StringVar(&cfg.publicURL, "public-url", "",
		"`URL` (scheme://host[:port]) the temporary attachment URLs start with (default: the listening address), e.g. behind a port mapping. "+
			"Its host is also a name the listeners answer to (they refuse other names, against DNS rebinding, when bound to loopback): "+
			"give it when you reach convofake as host.docker.internal or through a tunnel")
	declareSecretFlags(fs, cfg)
	declareServerFlags(fs, &cfg.server)
	return fs
}

// printUsage writes the help: the introduction, then each flag with its
// placeholder and its text, in the GNU style (--name).
func printUsage(w io.Writer, fs *flag.FlagSet) {
	var b strings.Builder
	b.WriteString(usageIntro)
	fs.VisitAll(func(f *flag.Flag) {
		name, usage := flag.UnquoteUsage(f)
		if _, isBool := f.Value.(interface{ IsBoolFlag() bool }); isBool {
			name = ""
		}
		b.WriteString("  --" + f.Name)
		if name != "" {
			b.WriteString(" " + name)
		}
		b.WriteString("\n" + wrap(usage, 72, "        ") + "\n")
	})
	_, _ = io.WriteString(w, b.String())
}

// wrap breaks text into lines of at most width characters, each after
// indent.
func wrap(text string, width int, indent string) string {
	var lines []string
	line := ""
	for _, word := range strings.Fields(text) {
		if line != "" && len(line)+1+len(word) > width {
			lines = append(lines, indent+line)
			line = ""
		}
		if line != "" {
			line += " "
		}
		line += word
	}
	if line != "" {
		lines = append(lines, indent+line)
	}
	return strings.Join(lines, "\n")
}

// parseFlags reads args. With -h or --help it writes the help on stdout and
// returns flag.ErrHelp. A parse error is returned, never printed: the
// caller reports it once.
func parseFlags(args []string, stdout io.Writer) (*config, error) {
	cfg := &config{}
	fs := newFlagSet(cfg)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			printUsage(stdout, fs)
		}
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected argument %q (convofake takes flags only)", fs.Arg(0))
	}
	fs.Visit(func(f *flag.Flag) {
		switch f.Name {
		case "api-key":
			cfg.apiKeySet = true
		case "rate-burst":
			cfg.rateSet.burst = true
		case "rate-window":
			cfg.rateSet.window = true
		}
	})
	if err := cfg.readSecrets(); err != nil {
		return nil, err
	}
	if cfg.adminIfToken && cfg.adminToken != "" && cfg.adminAddr == "" {
		cfg.adminOnPublic = true
	}
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	return cfg, nil
}

// validate checks the values that the flag package does not.
func (cfg *config) validate() error {
	switch {
	case cfg.logFormat != "text" && cfg.logFormat != "json":
		return fmt.Errorf("--log-format: %q is neither text nor json", cfg.logFormat)
	case cfg.apiKeySet && cfg.apiKey == "":
		return errors.New("--api-key: empty; leave the flag out to use the seed's key or " + fake.DefaultAPIKey)
	case cfg.anomalyCache < 0:
		return errors.New("--anomaly-cache: must be ≥ 0")
	case cfg.maxSeedSize < 1024:
		return errors.New("--max-seed-size: must be at least 1KiB")
	case cfg.journalLimit < 0:
		return errors.New("--journal-limit: must be ≥ 0 (0 disables the journal)")
	}
	if err := cfg.validateRate(); err != nil {
		return err
	}
	if err := cfg.server.validate(); err != nil {
		return err
	}
	return cfg.validateAddrs()
}

// validateRate checks the --rate-* flags together: a flag that the chosen
// kind does not read is refused rather than ignored.
func (cfg *config) validateRate() error {
	windowed := cfg.rateLimiter == "fixed" || cfg.rateLimiter == "sliding"
	switch {
	case cfg.rateLimiter != "bucket" && !windowed:
		return fmt.Errorf("--rate-limiter: %q is not bucket, fixed or sliding", cfg.rateLimiter)
	case cfg.rateLimit < 0 || math.IsNaN(cfg.rateLimit) || math.IsInf(cfg.rateLimit, 0):
		return errors.New("--rate-limit: must be a number ≥ 0")
	case cfg.rateBurst < 0:
		return errors.New("--rate-burst: must be ≥ 0")
	case cfg.rateWindow <= 0:
		return errors.New("--rate-window: must be > 0")
	case windowed && (cfg.rateLimit != math.Trunc(cfg.rateLimit) || cfg.rateLimit > math.MaxInt32):
		return fmt.Errorf("--rate-limit: with --rate-limiter %s, a whole number of requests per --rate-window", cfg.rateLimiter)
	case windowed && cfg.rateSet.burst:
		return fmt.Errorf("--rate-burst: only for --rate-limiter bucket (a %s window has no burst)", cfg.rateLimiter)
	case !windowed && cfg.rateSet.window:
		return errors.New("--rate-window: only for --rate-limiter fixed or sliding (the bucket's --rate-limit is per second)")
	}
	return nil
}

// rateLimitOption is the fake's request limit as the --rate-* flags set it.
func (cfg *config) rateLimitOption() fake.Option {
	switch cfg.rateLimiter {
	case "fixed":
		return fake.WithFixedWindowLimit(int(cfg.rateLimit), cfg.rateWindow)
	case "sliding":
		return fake.WithSlidingWindowLimit(int(cfg.rateLimit), cfg.rateWindow)
	}
	burst := cfg.rateBurst
	if burst == 0 {
		burst = max(1, int(math.Ceil(cfg.rateLimit)))
	}
	return fake.WithRateLimit(cfg.rateLimit, burst)
}

// validateAddrs checks the flags that say where to listen and what to
// print: --admin-addr, --clock, --public-url.
func (cfg *config) validateAddrs() error {
	switch {
	case cfg.adminAddr != "" && cfg.adminOnPublic:
		return errors.New("--admin-addr and --admin-on-public: give one; --admin-addr serves the admin API on its own listener, --admin-on-public on --addr")
	case cfg.adminAddr != "" && cfg.adminAddr == cfg.addr && !strings.HasSuffix(cfg.addr, ":0"):
		return fmt.Errorf("--admin-addr %s: the same as --addr; leave --admin-addr out to serve the admin API on --addr", cfg.adminAddr)
	}
	if cfg.clock != "" {
		if _, _, err := parseClock(cfg.clock, time.Time{}); err != nil {
			return fmt.Errorf("--clock: %w", err)
		}
	}
	if cfg.publicURL != "" && !strings.HasPrefix(cfg.publicURL, "http://") && !strings.HasPrefix(cfg.publicURL, "https://") {
		return fmt.Errorf("--public-url: %q does not start with http:// or https://", cfg.publicURL)
	}
	return nil
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

// byteSize is a flag value in bytes: a whole number, optionally followed by
// a unit: B, KiB, MiB, GiB (powers of 1024) or KB, MB, GB (powers of 1000).
type byteSize int64

var byteUnits = []struct {
	suffix string
	factor int64
}{
	{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30},
	{"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9}, {"B", 1},
}

func (b *byteSize) String() string {
	if b == nil {
		return "0"
	}
	return strconv.FormatInt(int64(*b), 10)
}

// Set parses s; case does not matter in the unit ("32mib" is 32MiB).
func (b *byteSize) Set(s string) error {
	num, factor := strings.TrimSpace(s), int64(1)
	for _, u := range byteUnits {
		if len(num) > len(u.suffix) && strings.EqualFold(num[len(num)-len(u.suffix):], u.suffix) {
			num, factor = strings.TrimSpace(num[:len(num)-len(u.suffix)]), u.factor
			break
		}
	}
	n, err := strconv.ParseInt(num, 10, 64)
	if err != nil || n < 0 || n > math.MaxInt64/factor {
		return fmt.Errorf("%q is not a size: want a whole number ≥ 0 of bytes, optionally with a unit (e.g. 32MiB, 512KiB, 1GB)", s)
	}
	*b = byteSize(n * factor)
	return nil
}
