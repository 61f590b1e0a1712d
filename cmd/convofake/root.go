package main

import (
	"net/http"
	"time"
)

// rootInfo is the data of GET /: where the API, its document and the admin
// API are, so that a user who opens the bare address finds the way.
type rootInfo struct {
	Name    string  `json:"name"`
	BaseURL string  `json:"base_url"`
	OpenAPI string  `json:"openapi"`
	Admin   *string `json:"admin"`
	Note    string  `json:"note,omitempty"`
}

// withRoot answers GET and HEAD on "/" with a short envelope pointing to
// the base URL (base + "/v1"), the OpenAPI document and the admin API
// (adminURL + "/", on this address or on --admin-addr; null with a note
// when it is off), and passes every
// other path to next. It needs no key: it holds no data and no secret.
// Its timestamp and Date header are on the fake's clock (now), as the
// API's are: on a frozen clock, the frozen time.
// The URLs are read when asked: the listeners may not exist yet when the
// handler is built.
func withRoot(next http.Handler, base, adminURL func() string, now func() time.Time) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/" {
			next.ServeHTTP(w, r)
			return
		}
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			writeAdminError(w, errorf(http.StatusMethodNotAllowed, "method_not_allowed", "%s / is not served; GET / points the way", r.Method))
			return
		}
		at := now()
		w.Header().Set("Date", at.UTC().Format(http.TimeFormat))
		writeJSON(w, http.StatusOK, map[string]any{
			"success":   true,
			"data":      newRootInfo(base(), adminURL()),
			"timestamp": formatTime(at),
		})
	})
}

func newRootInfo(base, adminURL string) rootInfo {
	info := rootInfo{Name: "convofake", BaseURL: base + "/v1", OpenAPI: base + openAPIPath}
	if adminURL != "" {
		a := adminURL + "/"
		info.Admin = &a
	} else {
		info.Note = "the admin API is off: convofake listens beyond loopback (see --admin-addr)"
	}
	return info
}
