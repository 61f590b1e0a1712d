package fake

import (
	"bytes"
	"mime"
	"net"
	"net/http"
	"time"

	convo "github.com/convoapi/convo-go"
)

// fileGrant is one temporary attachment URL.
type fileGrant struct {
	media       *media
	expires     time.Time // on the server's clock: what expires_at says
	realExpires time.Time // on the machine's clock: a frozen clock must not keep links forever
}

// expired reports whether a grant has expired by the server's clock (now)
// or by real elapsed time.
func (g *fileGrant) expired(now time.Time) bool {
	return !now.Before(g.expires) || !time.Now().Before(g.realExpires)
}

// maxFileGrants bounds the temporary links kept at once: past it, the
// oldest are forgotten (their URLs answer 404), so that a client asking for
// addresses in a loop cannot grow the server without bound.
const maxFileGrants = 10_000

// fileGrants are the temporary links given, by token, oldest first. Every
// grant has the same lifetime, so they expire in the order given: the
// oldest are dropped first, in constant time per grant.
type fileGrants struct {
	byToken map[string]*fileGrant
	order   []string
}

func newFileGrants() *fileGrants { return &fileGrants{byToken: map[string]*fileGrant{}} }

// add records a grant, after dropping the expired ones and, past
// maxFileGrants, the oldest.
func (f *fileGrants) add(token string, g *fileGrant, now time.Time) {
	for len(f.order) > 0 {
		old := f.byToken[f.order[0]]
		if old != nil && !old.expired(now) && len(f.byToken) < maxFileGrants {
			break
		}
		delete(f.byToken, f.order[0])
		f.order = f.order[1:]
	}
	f.byToken[token] = g
	f.order = append(f.order, token)
}

// wireAttachment is the data of GET /attachments/{media_id}.
type wireAttachment struct {
	MediaID   string `json:"media_id"`
	URL       string `json:"url"`
	ExpiresAt string `json:"expires_at"`
	MimeType  string `json:"mime_type"`
	FileSize  int64  `json:"file_size"`
	Filename  string `json:"filename"`
}

// handleAttachment serves GET /attachments/{media_id}: a
// temporary absolute URL on the fake itself, under /_files/, valid for the
// attachment TTL on the server's clock and needing no key. Unknown media, or
// another company's, is 404 MEDIA_NOT_FOUND.
func (s *Server) handleAttachment(w http.ResponseWriter, r *http.Request, co *company, args []string) {
	now := s.clock.Now()
	var data wireAttachment
	e := s.withStore(readWrite, func() *apiError {
		md := co.media[args[0]]
		if md == nil {
			return errf(http.StatusNotFound, convo.CodeMediaNotFound, "Media not found.")
		}
		token := newToken()
		expires := now.Add(s.cfg.attachmentTTL)
		s.files.add(token, &fileGrant{media: md, expires: expires, realExpires: time.Now().Add(s.cfg.attachmentTTL)}, now)
		data = wireAttachment{
			MediaID: *md.MediaID, URL: s.baseFor(r) + filesPrefix + token, ExpiresAt: formatTime(expires),
			MimeType: *md.MimeType, FileSize: *md.FileSize, Filename: *md.Filename,
		}
		return nil
	})
	if e != nil {
		s.writeError(w, r, e)
		return
	}
	s.writeJSON(w, http.StatusOK, data)
}

// baseFor is scheme://host[/prefix] of attachment URLs: WithPublicURL,
// else the server's own listener, else the local address the request came
// in on. Never the request's Host header: a client could name any host
// there, and the URL would send the next download to it.
func (s *Server) baseFor(r *http.Request) string {
	if s.publicBase != "" {
		return s.publicBase
	}
	if s.ts != nil {
		return s.ts.URL
	}
	if s.mem != nil {
		return "http://" + inMemoryAddr // reached through the in-memory dialer
	}
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	if addr, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr); ok && addr.Network() == "tcp" {
		return scheme + "://" + addr.String()
	}
	return scheme + "://localhost"
}

// handleFile serves a temporary attachment URL: no key needed. An
// unknown token is 404 NOT_FOUND; a token past its expires_at is 403
// URL_EXPIRED, as signed storage URLs answer.
func (s *Server) handleFile(w http.ResponseWriter, r *http.Request, token string) {
	now := s.clock.Now()
	var g *fileGrant
	s.withStore(readOnly, func() *apiError {
		g = s.files.byToken[token]
		return nil
	})
	if g == nil {
		s.writeError(w, r, errf(http.StatusNotFound, codeNotFound, "File not found."))
		return
	}
	if g.expired(now) {
		s.writeError(w, r, errf(http.StatusForbidden, codeURLExpired, "The temporary URL has expired. Request the attachment again."))
		return
	}
	h := w.Header()
	h.Set("Content-Type", *g.media.MimeType)
	h.Set("Content-Disposition", mime.FormatMediaType("attachment", map[string]string{"filename": *g.media.Filename}))
	// ServeContent answers a Range request with 206 and Content-Range (a
	// download resumes from where it was cut), and 416 past the end.
	http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(g.media.data))
}
