package main

import (
	"net"
	"net/netip"
	"strings"

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
