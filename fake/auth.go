package fake

import (
	"crypto/sha256"
	"crypto/subtle"
	"net/http"
	"strings"

	convo "github.com/convoapi/convo-go"
)

// authenticate finds the company of the request's API key, sent in one of
// Authorization: Bearer <key>, Authorization: ApiKey <key> or
// x-api-key: <key>. A key in the query string or the body authenticates
// nothing. Keys are compared in constant time: both sides are hashed, and
// every company's hash is compared, so neither the position of the first
// differing byte nor the matching company shows in the timing.
func (s *Server) authenticate(r *http.Request) (*company, *apiError) {
	key, why := requestKey(r.Header)
	if why != "" {
		return nil, errf(http.StatusUnauthorized, convo.CodeUnauthorized, msgUnauthorizedPrefix+why)
	}
	unauthorized := func() *apiError { return errf(http.StatusUnauthorized, convo.CodeUnauthorized, msgUnauthorized) }
	if key == "" {
		return nil, unauthorized()
	}
	h := sha256.Sum256([]byte(key))
	s.mu.RLock()
	defer s.mu.RUnlock()
	var found *company
	for _, co := range s.companies {
		if subtle.ConstantTimeCompare(h[:], co.keyHash[:]) == 1 {
			found = co
		}
	}
	if found == nil {
		return nil, unauthorized()
	}
	return found, nil
}

// msgUnauthorizedPrefix starts the 401 text that says why a request giving
// two keys is refused.
const msgUnauthorizedPrefix = "Invalid or missing API key: "

// requestKey extracts the key of one of the three header forms ("" when
// there is none). When Authorization is present it decides; the schemes
// are matched without regard to case, as HTTP auth schemes are. Two values
// for the key are never resolved by picking one: two Authorization lines,
// two x-api-key lines, or both forms with different keys return why they
// are refused (docs/behaviour.md, Strict input).
func requestKey(h http.Header) (key, why string) {
	const once = "; send the key once."
	auths, xs := h["Authorization"], h["X-Api-Key"] // canonical names: what Values would look up
	switch {
	case len(auths) > 1:
		return "", "the Authorization header is given more than once" + once
	case len(xs) > 1:
		return "", "the x-api-key header is given more than once" + once
	}
	x := ""
	if len(xs) == 1 {
		x = strings.TrimSpace(xs[0])
	}
	if len(auths) == 0 || auths[0] == "" {
		return x, ""
	}
	key = authorizationKey(auths[0])
	if key != "" && x != "" && subtle.ConstantTimeCompare([]byte(key), []byte(x)) != 1 {
		return "", "Authorization and x-api-key give different keys" + once
	}
	return key, ""
}

// authorizationKey is the key of an Authorization value of the Bearer or
// ApiKey scheme, "" for any other value.
func authorizationKey(auth string) string {
	scheme, key, found := strings.Cut(strings.TrimSpace(auth), " ")
	key = strings.TrimSpace(key)
	if !found || !(strings.EqualFold(scheme, "Bearer") || strings.EqualFold(scheme, "ApiKey")) {
		return ""
	}
	return key
}
