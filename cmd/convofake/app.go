package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
	"time"

	"github.com/convoapi/convo-go/fake"
	"github.com/convoapi/convo-go/internal/netx"
)

// app is a started convofake: the fake, its admin API and their listeners.
type app struct {
	cfg        *config
	logger     *slog.Logger
	srv        *fake.Server
	adm        *admin
	apiLn      net.Listener
	adminLn    net.Listener // nil unless --admin-addr
	place      adminPlace
	adminToken string
	keySource  keySource
	state      *stateFile // nil without --state
	data       string     // where the data came from, for the lines printed at start (dataText)
	inFlight   inFlight
}

// startApp builds everything run serves; its errors say which flag to
// change.
func startApp(cfg *config, logger *slog.Logger) (a *app, err error) {
	var state *stateFile
	var seed *fake.Seed
	var doc []byte // the document seed was decoded from; nil for the demo data
	if cfg.stateFile != "" {
		if state, seed, doc, err = openStateFile(cfg.stateFile, int64(cfg.maxSeedSize)); err != nil {
			return nil, err
		}
		defer func() {
			if err != nil {
				state.lock.release()
			}
		}()
	}
	data := dataText(cfg, seed)
	if seed == nil {
		if seed, doc, err = loadStartSeed(cfg); err != nil {
			return nil, err
		}
	}
	key, source := startAPIKey(cfg, seed)
	clock := startClock(cfg, seed)
	var fromDoc []fake.Option
	if doc != nil {
		// The server keeps the document for Reset, not a copy it encodes,
		// and makes the changes startAPIKey and startClock made (the key,
		// the seed's now dropped for --clock) again on what it decodes.
		fromDoc = append(fromDoc, fake.WithSeedDocument(seed, doc, func(seed *fake.Seed) {
			startAPIKey(cfg, seed)
			startClock(cfg, seed)
		}))
	}

	a = &app{cfg: cfg, logger: logger, keySource: source, adminToken: cfg.adminToken, data: data}
	if a.adminToken == "" {
		a.adminToken = randomToken()
	}
	if a.apiLn, err = listen("--addr", cfg.addr); err != nil {
		return nil, err
	}
	if cfg.adminAddr != "" {
		if a.adminLn, err = listen("--admin-addr", cfg.adminAddr); err != nil {
			a.closeListeners()
			return nil, err
		}
	}
	a.place = placeAdmin(cfg, a.apiLn.Addr().String())

	a.srv, err = newFake(cfg, seed, key, clock, a.publicURL(), logger, fromDoc...)
	if err != nil {
		a.closeListeners()
		return nil, seedError(cfg, errors.New(redactSecrets(err.Error(), seedKeys(seed)...)))
	}
	if source == keySeed {
		logger.Info("the API key of the default company is the seed file's", "company", a.srv.Company().ID(), "from", "companies[0].api_key of "+cfg.seedFile)
	}
	a.adm = newAdmin(a.srv, a.adminToken, logger)
	a.adm.seedLimit = int64(cfg.maxSeedSize)
	if state != nil {
		state.srv = a.srv
		a.state, a.adm.state = state, state
	}
	a.adm.checkHost = true
	a.adm.hosts, a.adm.anyIP = listenHosts(cmp.Or(cfg.adminAddr, cfg.addr), cfg.publicURL)
	return a, nil
}

// newFake is the fake convofake serves, as the flags configure it, and
// the options of extra after them.
func newFake(cfg *config, seed *fake.Seed, key string, clock *fake.Clock, publicURL string, logger *slog.Logger, extra ...fake.Option) (*fake.Server, error) {
	return fake.NewHandler(append([]fake.Option{
		fake.WithDefaultCompanyID(seed.Companies[0].ID), // a restart keeps the default company's id
		fake.WithClock(clock),
		fake.WithAPIKey(key),
		fake.WithSeed(seed),
		cfg.rateLimitOption(),
		fake.WithAnomalyCacheTTL(cfg.anomalyCache),
		fake.WithJournalLimit(cfg.journalLimit),
		fake.WithJournalBytes(int64(cfg.journalBytes)),
		fake.WithPublicURL(publicURL),
		fake.WithLogger(logger),
	}, extra...)...)
}

// seedError names the seed's origin (the --seed file or the demo data).
func seedError(cfg *config, err error) error {
	if cfg.seedFile != "" {
		return fmt.Errorf("--seed %s: %w", cfg.seedFile, err)
	}
	return err
}

// startClock is the server's clock: --clock when given, else frozen at the
// seed's now when it has one, else real. A --clock wins over the seed's now,
// which it removes from the seed.
func startClock(cfg *config, seed *fake.Seed) *fake.Clock {
	if cfg.clock == "" && seed.Now != nil {
		return fake.NewManualClock(*seed.Now)
	}
	seed.Now = nil
	frozen, at, _ := parseClock(cmp.Or(cfg.clock, "real"), time.Now().UTC().Truncate(time.Second))
	if frozen {
		return fake.NewManualClock(at)
	}
	return fake.NewRealClock()
}

// publicURL is the base of the temporary attachment URLs: --public-url, or
// the API listener's address when it has one of its own (not 0.0.0.0 or
// ::), else "" (the fake then takes the address each request came in on).
func (a *app) publicURL() string {
	if a.cfg.publicURL != "" {
		return a.cfg.publicURL
	}
	if ap, err := netip.ParseAddrPort(a.apiLn.Addr().String()); err == nil && !ap.Addr().IsUnspecified() {
		return "http://" + ap.String()
	}
	return ""
}

// baseURL is where clients reach the API: --public-url, or the listener as
// reached from this machine.
func (a *app) baseURL() string {
	return cmp.Or(a.cfg.publicURL, localURL(a.apiLn.Addr().String()))
}

// adminURL is where the admin API is reached from this machine; "" when it
// is off.
func (a *app) adminURL() string {
	switch a.place {
	case adminOwnAddr:
		return localURL(a.adminLn.Addr().String()) + "/_fake"
	case adminOnAddr:
		return a.baseURL() + "/_fake"
	}
	return ""
}

// printWhatToUse prints, on stdout, what a client needs: lines a shell can
// source, and comments. Never logged: stderr holds no key or token.
func (a *app) printWhatToUse(w io.Writer) {
	var b strings.Builder
	b.WriteString("# convofake: the fake messaging API is listening\n")
	fmt.Fprintf(&b, "CONVO_BASE_URL=%s/v1\n", a.baseURL())
	if a.cfg.apiKeyFrom != "" {
		fmt.Fprintf(&b, "# CONVO_API_KEY: the key of %s (not printed)\n", a.cfg.apiKeyFrom)
	} else {
		fmt.Fprintf(&b, "CONVO_API_KEY=%s\n", a.srv.APIKey())
	}
	if a.keySource == keySeed {
		fmt.Fprintf(&b, "# api key: companies[0].api_key of --seed %s (--api-key overrides it)\n", a.cfg.seedFile)
	}
	if u := a.adminURL(); u != "" {
		fmt.Fprintf(&b, "CONVOFAKE_ADMIN_URL=%s\n", u)
		if a.cfg.adminTokenFrom != "" {
			fmt.Fprintf(&b, "# CONVOFAKE_ADMIN_TOKEN: the token of %s (not printed)\n", a.cfg.adminTokenFrom)
			if a.cfg.adminTokenFrom == "$"+envAdminToken {
				// The variable this output sets: a shell that sourced an earlier
				// output restarts convofake with the old token, silently.
				fmt.Fprintf(&b, "# it was in convofake's environment (a shell that sourced an earlier output of convofake has it): "+
					"a shell that sources this output needs the same value, or unset %s and restart convofake to have a new token printed here\n", envAdminToken)
			}
			fmt.Fprintf(&b, "# the page: %s/ui/#token=<the token>\n", u)
		} else {
			fmt.Fprintf(&b, "CONVOFAKE_ADMIN_TOKEN=%s\n", a.adminToken)
			fmt.Fprintf(&b, "CONVOFAKE_UI_URL=%s/ui/#token=%s\n", u, a.adminToken) // the token in the fragment: never sent
		}
	} else {
		fmt.Fprintf(&b, "# admin API: off, because --addr %s listens beyond loopback; add --admin-addr 127.0.0.1:<port> to serve it on loopback, or --admin-on-public to serve it on --addr\n", a.cfg.addr)
	}
	clockText := "real"
	if c := a.srv.Clock(); c.Manual() {
		clockText = "frozen at " + formatTime(c.Now()) + " (move it with POST /_fake/clock)"
	}
	fmt.Fprintf(&b, "# clock: %s\n", clockText)
	fmt.Fprintf(&b, "# data: %s\n", a.data)
	b.WriteString("# try: curl -H \"Authorization: Bearer $CONVO_API_KEY\" $CONVO_BASE_URL/channels\n")
	_, _ = io.WriteString(w, b.String())
}

// handlers returns the handler of each listener: the API's, and the admin
// listener's when there is one.
func (a *app) handlers() (api, adminOnly http.Handler) {
	var adminHere http.Handler = a.adm
	switch a.place {
	case adminOwnAddr:
		adminHere = notServed("the admin API listens on its own address (--admin-addr), not on this one")
		adminOnly = a.inFlight.wrap(closeUnread(logRequests(a.logger, a.srv, route(notServed("this address serves the admin API only (/_fake/); the API is on --addr"), a.adm))))
	case adminOff:
		adminHere = notServed("the admin API is off: convofake listens beyond loopback (--addr " + a.cfg.addr +
			"); restart it with --admin-addr 127.0.0.1:<port> to serve the admin API on loopback, or with --admin-on-public to serve it here")
	}
	var apiHere http.Handler = withRoot(withOpenAPI(route(a.srv.Handler(), adminHere)), a.baseURL, a.adminURL, a.srv.Clock().Now)
	if a.apiLn != nil && netx.IsLoopback(a.apiLn.Addr().String()) { // beyond loopback, any name may reach it on purpose
		names, anyIP := listenHosts(a.cfg.addr, a.cfg.publicURL)
		apiHere = hostGuard(a.srv, names, anyIP, apiHere)
	}
	return a.inFlight.wrap(closeUnread(logRequests(a.logger, a.srv, apiHere))), adminOnly
}

// notServed answers every request with 404 admin_not_served and msg.
func notServed(msg string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		writeAdminError(w, errorf(http.StatusNotFound, "admin_not_served", "%s", msg))
	})
}

// serve runs the listeners until ctx ends (exit 0, or 3 when the shutdown
// cut requests) or one fails (exit 1).
func (a *app) serve(ctx context.Context, stderr io.Writer, ready func(addr string)) int {
	apiHandler, adminHandler := a.handlers()
	lim := &a.cfg.server
	servers := []*http.Server{lim.newServer(apiHandler, a.logger)}
	listeners := []net.Listener{capConns(a.apiLn, lim.maxConns, a.logger)}
	if a.adminLn != nil {
		servers = append(servers, lim.newServer(adminHandler, a.logger))
		listeners = append(listeners, capConns(a.adminLn, lim.maxConns, a.logger))
	}
	serveErr := make(chan error, len(servers))
	for i, s := range servers {
		go func() { serveErr <- s.Serve(listeners[i]) }()
	}
	attrs := []any{"addr", a.apiLn.Addr().String()}
	if a.adminLn != nil {
		attrs = append(attrs, "admin_addr", a.adminLn.Addr().String())
	}
	a.logger.Info("convofake started", attrs...)
	if ready != nil {
		ready(a.apiLn.Addr().String())
	}

	code := exitOK
	pending := len(servers)
	select {
	case err := <-serveErr:
		pending--
		fmt.Fprintf(stderr, "convofake: stopped: %v\n", err)
		code = exitFailure
	case <-ctx.Done():
		a.logger.Info("convofake shutting down")
	}
	if cut := a.shutdown(servers); cut > 0 && code == exitOK {
		code = exitCut
	}
	if !a.saveOnExit(stderr) {
		code = exitFailure
	}
	for range pending {
		<-serveErr // Serve returns http.ErrServerClosed once Shutdown starts
	}
	return code
}

// shutdown stops the servers: it lets requests in flight finish for
// --shutdown-grace, then closes every connection. It returns how many
// requests it cut.
func (a *app) shutdown(servers []*http.Server) int64 {
	sctx, cancel := context.WithTimeout(context.Background(), a.cfg.server.shutdownGrace)
	defer cancel()
	done := make(chan struct{}, len(servers))
	for _, s := range servers {
		go func() { _ = s.Shutdown(sctx); done <- struct{}{} }()
	}
	for range servers {
		<-done
	}
	if sctx.Err() == nil {
		return 0
	}
	cut := a.inFlight.n.Load()
	for _, s := range servers {
		_ = s.Close()
	}
	if cut > 0 {
		a.logger.Warn("shutdown grace over: requests still running were cut", "cut", cut, "grace", a.cfg.server.shutdownGrace)
	}
	return cut
}

// closeListeners closes the listeners (Serve closes them too; closing
// twice is harmless).
func (a *app) closeListeners() {
	for _, ln := range []net.Listener{a.apiLn, a.adminLn} {
		if ln != nil {
			_ = ln.Close()
		}
	}
}

// dataText says where the start data comes from, for the lines printed at
// start: a restart from a --state file says what it loaded, so that it
// does not read as a fresh start. state is the --state file's seed, nil
// when there is none or it does not exist yet.
func dataText(cfg *config, state *fake.Seed) string {
	from := "the demo data"
	if cfg.seedFile != "" {
		from = "--seed " + cfg.seedFile
	}
	switch {
	case state != nil:
		return fmt.Sprintf("--state %s, loaded: %s (written back on exit)", cfg.stateFile, seedSize(state))
	case cfg.stateFile != "":
		return fmt.Sprintf("%s; --state %s does not exist yet: it is written on exit", from, cfg.stateFile)
	}
	return from
}

// seedSize counts what a seed holds: "1 company, 3 contacts, 2
// conversations, 8 messages".
func seedSize(seed *fake.Seed) string {
	var contacts, convs, msgs int
	for _, co := range seed.Companies {
		contacts += len(co.Contacts)
		convs += len(co.Conversations)
		for _, cv := range co.Conversations {
			msgs += len(cv.Messages)
		}
	}
	return strings.Join([]string{count(len(seed.Companies), "company", "companies"), count(contacts, "contact", "contacts"),
		count(convs, "conversation", "conversations"), count(msgs, "message", "messages")}, ", ")
}

// count is n things, in the singular for one.
func count(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}
