package fake

import (
	"crypto/sha256"
	"crypto/subtle"
	"math"
	"net/http"
	"strings"
	"sync"
	"time"

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
	unauthorized := errf(http.StatusUnauthorized, convo.CodeUnauthorized, msgUnauthorized)
	if key == "" {
		return nil, unauthorized
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
		return nil, unauthorized
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
	auths, xs := h.Values("Authorization"), h.Values("X-Api-Key")
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

// limiter holds the token buckets of the request limit (per key) and of the
// anomalies limit (per key), both on the server's clock and on real elapsed
// time, whichever moved further.
type limiter struct {
	mu      sync.Mutex
	clock   *Clock
	rate    float64 // tokens per second; <= 0: no limit
	burst   float64
	aRate   float64 // anomalies: tokens per second; <= 0: no limit
	aBurst  float64
	buckets map[string]*bucket
	anomaly map[string]*bucket
}

type bucket struct {
	tokens   float64
	last     time.Time // the server's clock at the last refill
	lastReal time.Time // the machine's clock then (monotonic)
}

func newLimiter(c *Clock, rate float64, burst, anomalyCalls int, anomalyPer time.Duration) *limiter {
	l := &limiter{clock: c, rate: rate, burst: float64(burst), buckets: map[string]*bucket{}, anomaly: map[string]*bucket{}}
	if l.burst < 1 {
		l.burst = 1
	}
	if anomalyCalls > 0 && anomalyPer > 0 {
		l.aBurst = float64(anomalyCalls)
		l.aRate = float64(anomalyCalls) / anomalyPer.Seconds()
	}
	return l
}

// allow takes a token for key (and one of the anomalies bucket for the
// anomalies endpoint) or returns the 429 answer with its Retry-After.
func (l *limiter) allow(key string, anomalies bool) *apiError {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.clock.Now()
	if l.rate > 0 {
		if wait := take(l.buckets, key, now, l.rate, l.burst); wait > 0 {
			return rateLimited(wait)
		}
	}
	if anomalies && l.aRate > 0 {
		if wait := take(l.anomaly, key, now, l.aRate, l.aBurst); wait > 0 {
			// Give back the general token: the request was not served.
			if l.rate > 0 {
				b := l.buckets[key]
				b.tokens = math.Min(l.burst, b.tokens+1)
			}
			return rateLimited(wait)
		}
	}
	return nil
}

// take refills the bucket of key and takes one token; when none is left it
// returns how long until one is.
func take(m map[string]*bucket, key string, now time.Time, rate, burst float64) time.Duration {
	real := time.Now()
	b := m[key]
	if b == nil {
		b = &bucket{tokens: burst, last: now, lastReal: real}
		m[key] = b
	}
	// The bucket refills on the server's clock, and on real elapsed time
	// too: a frozen or manual clock must never wedge the server, so a
	// client that waits the Retry-After it was given gets through.
	el := max(now.Sub(b.last), real.Sub(b.lastReal))
	if el > 0 {
		b.tokens = math.Min(burst, b.tokens+el.Seconds()*rate)
	}
	b.last, b.lastReal = now, real // a clock set back restarts counting from now
	if b.tokens >= 1 {
		b.tokens--
		return 0
	}
	return time.Duration((1 - b.tokens) / rate * float64(time.Second))
}

func rateLimited(wait time.Duration) *apiError {
	e := errf(http.StatusTooManyRequests, convo.CodeRateLimited, "Too many requests. Retry later.")
	e.retryAfter = wait
	return e
}

// reset forgets every bucket (Server.Reset).
func (l *limiter) reset() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.buckets = map[string]*bucket{}
	l.anomaly = map[string]*bucket{}
}
