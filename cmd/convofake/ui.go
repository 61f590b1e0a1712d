package main

import (
	"embed"
	"io/fs"
	"net/http"
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
		h.Set("Content-Security-Policy", "default-src 'self'; img-src 'self' blob:; frame-ancestors 'none'; base-uri 'none'; form-action 'none'")
		files.ServeHTTP(w, r)
	})
}
