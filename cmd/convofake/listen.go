package main

import (
	"errors"
	"fmt"
	"net"
	"net/netip"
	"syscall"

	"github.com/convoapi/convo-go/internal/netx"
)

// listen opens the listener of flag (--addr or --admin-addr) on addr. Its
// error says what went wrong and what to try, in flag terms.
func listen(flagName, addr string) (net.Listener, error) {
	ln, err := net.Listen("tcp", addr)
	if err == nil {
		return ln, nil
	}
	return nil, fmt.Errorf("%s %s: %w; %s", flagName, addr, err, listenHint(flagName, err))
}

// listenHint is the advice for a listen error.
func listenHint(flagName string, err error) string {
	switch {
	case errors.Is(err, syscall.EADDRINUSE):
		return "another program (perhaps another convofake) uses that port: try " + flagName + " 127.0.0.1:0 to take any free port (convofake prints the one it took)"
	case errors.Is(err, syscall.EACCES):
		return "ports below 1024 need privileges: try " + flagName + " 127.0.0.1:8080, or 127.0.0.1:0 for any free port"
	case errors.Is(err, syscall.EADDRNOTAVAIL):
		return "no interface of this machine has that address: try " + flagName + " 127.0.0.1:8080, or :8080 for every interface"
	}
	return "give host:port, e.g. " + flagName + " 127.0.0.1:8080, or 127.0.0.1:0 for any free port"
}

// localURL is the http:// URL at which this machine reaches a listener: its
// own address, with a listener on every interface (0.0.0.0, ::) reached
// through loopback.
func localURL(addr string) string {
	ap, err := netip.ParseAddrPort(addr)
	if err != nil {
		return "http://" + addr
	}
	ip := ap.Addr().Unmap()
	if ip.IsUnspecified() {
		// Go listens on [::] for ":port", on IPv4 and IPv6 alike.
		ip = netip.MustParseAddr("127.0.0.1")
	}
	return "http://" + netip.AddrPortFrom(ip, ap.Port()).String()
}

// adminPlace says where the admin API is served.
type adminPlace int

const (
	adminOnAddr  adminPlace = iota // on the --addr listener
	adminOwnAddr                   // on the --admin-addr listener only
	adminOff                       // nowhere: --addr is beyond loopback and nothing asked for it
)

// placeAdmin decides where the admin API goes: on its own listener when
// --admin-addr is given; on --addr when that listens on loopback only or
// --admin-on-public asks for it; else nowhere, so that binding every
// interface (a container's --addr :8080) never exposes the admin API by
// itself.
func placeAdmin(cfg *config, apiAddr string) adminPlace {
	switch {
	case cfg.adminAddr != "":
		return adminOwnAddr
	case netx.IsLoopback(apiAddr) || cfg.adminOnPublic:
		return adminOnAddr
	}
	return adminOff
}
