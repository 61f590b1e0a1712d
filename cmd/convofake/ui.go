package main

import (
	"embed"
	"io/fs"
	"net"
	"net/http"
	"net/netip"
	"strings"
)

// uiFiles are the page of /_fake/ui/: plain HTML, CSS and JavaScript, no
// build step, nothing fetched from another host.
//
//go:embed ui
var uiFiles embed.FS

// uiPrefix is where the page is served, on the listener of the admin API.
const uiPrefix = "/_fake/ui/"

// uiHandler serves the page's files. They hold no data and no secret, so
// they are served without the admin token (a browser cannot send a header
// when it opens an address); the page reads the token from the address's
// fragment, which the browser never sends, and sends it as a header.
func uiHandler() http.Handler {
	sub, _ := fs.Sub(uiFiles, "ui") // cannot fail: ui is embedded
	files := http.StripPrefix(uiPrefix, http.FileServerFS(sub))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			writeAdminError(w, errorf(http.StatusMethodNotAllowed, "method_not_allowed", "the page's files are read with GET"))
			return
		}
		h := w.Header()
		h.Set("Cache-Control", "no-store")
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("X-Frame-Options", "DENY")
		// Only this origin, except images (the temporary attachment links
		// may be on the API's listener when the admin API has its own).
		h.Set("Content-Security-Policy", "default-src 'self'; img-src 'self' http://127.0.0.1:* http://localhost:* http://[::1]:*; frame-ancestors 'none'; base-uri 'none'; form-action 'none'")
		files.ServeHTTP(w, r)
	})
}

// hostAllowed says whether a request's Host header names this server, not
// a name a page of another site could rebind to a loopback address: a
// loopback address, localhost, or one of the names given (the configured
// listening hosts). With anyIP, every IP literal is accepted too (a
// listener on every interface, reached by address).
func hostAllowed(host string, names []string, anyIP bool) bool {
	h := host
	if hh, _, err := net.SplitHostPort(host); err == nil {
		h = hh
	}
	h = strings.TrimSuffix(strings.TrimPrefix(h, "["), "]")
	if strings.EqualFold(h, "localhost") {
		return true
	}
	if ip, err := netip.ParseAddr(h); err == nil && (ip.Unmap().IsLoopback() || anyIP) {
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
