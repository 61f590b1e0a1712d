package main

import (
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"strings"

	"github.com/convoapi/convo-go/fake"
	"github.com/convoapi/convo-go/internal/netx"
)

// hostAllowed says whether a request's Host header names this server, not
// a name a page of another site could rebind to a loopback address: a
// loopback address, localhost, or one of the names given (the configured
// listening hosts). With anyIP, every IP literal is accepted too (a
// listener on every interface, reached by address).
func hostAllowed(host string, names []string, anyIP bool) bool {
	if netx.IsLoopback(host) {
		return true
	}
	h := host
	if hh, _, err := net.SplitHostPort(host); err == nil {
		h = hh
	}
	h = strings.TrimSuffix(strings.TrimPrefix(h, "["), "]")
	if _, err := netip.ParseAddr(h); err == nil && anyIP {
		return true
	}
	for _, n := range names {
		if n != "" && strings.EqualFold(n, h) {
			return true
		}
	}
	return false
}

// listenHosts are the hosts of addresses (host:port or URL) that name
// this server: those of --addr, --admin-addr and --public-url. anyIP is
// true when one listens on every interface.
func listenHosts(addrs ...string) (names []string, anyIP bool) {
	for _, a := range addrs {
		if i := strings.Index(a, "://"); i >= 0 {
			a = strings.TrimSuffix(strings.SplitN(a[i+3:], "/", 2)[0], "/")
		}
		h, _, err := net.SplitHostPort(a)
		if err != nil {
			h = a
		}
		h = strings.TrimSuffix(strings.TrimPrefix(h, "["), "]")
		if ip, err := netip.ParseAddr(h); h == "" || err == nil && ip.IsUnspecified() {
			anyIP = anyIP || a != ""
			continue
		}
		names = append(names, h)
	}
	return names, anyIP
}

// codeHostNotAllowed is message.error of the API listener's refusal of a
// Host header (hostGuard).
const codeHostNotAllowed = "HOST_NOT_ALLOWED"

// hostGuard refuses, on the API listener bound to loopback, a request
// whose Host header names neither a loopback address nor this server (the
// listening host, --public-url): a page of another site in the
// developer's browser could otherwise read and write the data through a
// name it rebinds to 127.0.0.1 (DNS rebinding), with the public default
// key. The refusal is 403 HOST_NOT_ALLOWED in the API's error envelope,
// naming --public-url for those who reach convofake through another name
// on purpose (host.docker.internal, a tunnel). The admin API's paths are
// left to the admin API, which checks Host by the same rule and answers in
// its own shape.
func hostGuard(srv *fake.Server, names []string, anyIP bool, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		isAdmin := r.URL.Path == "/_fake" || strings.HasPrefix(r.URL.Path, "/_fake/")
		if isAdmin || hostAllowed(r.Host, names, anyIP) {
			next.ServeHTTP(w, r)
			return
		}
		srv.WriteError(w, r, http.StatusForbidden, codeHostNotAllowed, fmt.Sprintf(
			"The Host header %q names neither a loopback address nor this server's address. "+
				"If you reach convofake through that name on purpose (host.docker.internal, a tunnel, a proxy), "+
				"start it with --public-url http://%s so that it answers there (and gives attachment URLs under that name).",
			r.Host, r.Host))
	})
}
