// Package netx holds the one loopback rule shared by the SDK (plain http is
// allowed to this machine only) and convofake (the admin API is served on
// loopback only).
package netx

import (
	"net"
	"net/netip"
	"strings"
)

// IsLoopback reports whether a host, or the host of a host:port address,
// names this machine only: "localhost" (in any case), or a loopback address
// (127.0.0.0/8, ::1, or 127.x mapped into IPv6), bracketed or not. An empty
// host, as in ":8080" (every interface), is not loopback.
func IsLoopback(hostOrAddr string) bool {
	host := hostOrAddr
	if h, _, err := net.SplitHostPort(hostOrAddr); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.Unmap().IsLoopback()
}
