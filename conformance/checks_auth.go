package conformance

import (
	"context"
	"encoding/json"
	"net/http"
	"reflect"
)

// authGateID is the first check: a run whose key every form refuses, or
// whose server cannot be reached, ends after it.
const authGateID = "auth/key-forms"

// unauthorizedText is the service's text for a missing or invalid key.
const unauthorizedText = "Invalid or missing API key."

func authChecks() []*check {
	return []*check{
		{id: authGateID, basis: BasisSpec, spec: "Three equivalent forms are accepted, and all three count the same toward the request limit", fn: checkKeyForms,
			title: "the three key forms (Bearer, ApiKey, x-api-key) are accepted and answer alike"},
		{id: "auth/missing-key", basis: BasisSpec, spec: "A missing or invalid key: 401 `UNAUTHORIZED`, message \"Invalid or missing API key.\"", fn: checkBadKey(authNone),
			title: "a request without a key is refused: 401 UNAUTHORIZED, \"" + unauthorizedText + "\""},
		{id: "auth/wrong-key", basis: BasisSpec, spec: "A missing or invalid key: 401 `UNAUTHORIZED`, message \"Invalid or missing API key.\"", fn: checkBadKey(authWrong),
			title: "a request with a wrong key is refused: 401 UNAUTHORIZED, \"" + unauthorizedText + "\""},
		{id: "auth/key-in-query", basis: BasisSpec, spec: "Authentication by body or by query string does not exist.", fn: checkBadKey(authQuery),
			title: "a key in the query string (api_key) authenticates nothing: 401 UNAUTHORIZED, \"" + unauthorizedText + "\""},
	}
}

// checkKeyForms reads the channel list with each key form; the Bearer
// answer is the run's first discovery.
func checkKeyForms(ctx context.Context, r *runner, c *check) {
	forms := []struct {
		name string
		auth authMode
	}{{"Authorization: Bearer", authBearer}, {"Authorization: ApiKey", authAPIKey}, {"x-api-key", authXAPIKey}}
	var datas []any
	refused := 0
	for _, f := range forms {
		ex, ok := r.do(ctx, c, req{path: "/channels", auth: f.auth})
		if !ok {
			if len(datas) == 0 && refused == 0 && c.failed() {
				r.d.unreachable = "the server cannot be reached: " + c.reasons[0]
			}
			return
		}
		if ex.status == http.StatusUnauthorized {
			refused++
			c.failf(ex, "the %s form is refused (401)", f.name)
			continue
		}
		if _, ok := envelope(c, ex, http.StatusOK); !ok {
			continue
		}
		if f.auth == authBearer {
			r.d.channelsEx = ex
			r.d.now = envelopeTime(ex)
		}
		datas = append(datas, ex.data()["items"])
	}
	r.d.keyRefused = refused == len(forms)
	for i := 1; i < len(datas); i++ {
		if !reflect.DeepEqual(datas[0], datas[i]) {
			c.failf(nil, "the key forms answer different channel lists")
		}
	}
}

func checkBadKey(auth authMode) func(context.Context, *runner, *check) {
	return func(ctx context.Context, r *runner, c *check) {
		ex, ok := r.do(ctx, c, req{path: "/channels", auth: auth})
		if !ok {
			return
		}
		msg, ok := errorAnswer(c, ex, http.StatusUnauthorized, "UNAUTHORIZED")
		if !ok {
			return
		}
		// A key in the query is no key at all: the same text.
		if text, ok := msg.str("message", false); ok && text != unauthorizedText {
			c.failf(ex, "the text is %q, want %q", text, unauthorizedText)
		}
	}
}

// sameJSON reports whether two JSON values are equal.
func sameJSON(a, b any) bool {
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	return string(ja) == string(jb)
}

func rateLimitChecks() []*check {
	return []*check{
		{id: "auth/forms-count-alike", basis: BasisSpec, spec: "A request limit exists (429 `RATE_LIMITED`), counted alike for the three key forms.", fn: checkFormsCountAlike,
			title: "the three key forms count alike toward the request limit: once Bearer requests reach a 429, ApiKey and x-api-key are refused too (only with SpendRateLimit: it spends the account's limit)"},
	}
}

// checkFormsCountAlike sends Bearer requests, unpaced, until the server
// answers 429, then one request in each other form at once: counted alike,
// they are refused too.
func checkFormsCountAlike(ctx context.Context, r *runner, c *check) {
	if !r.cfg.SpendRateLimit {
		c.skipf("it needs 429s, which spend the account's shared request limit: only with --spend-rate-limit, for fakes")
		return
	}
	r.pacer.spend(true)
	defer r.pacer.spend(false)
	accepted := 0
	for {
		ex, ok := r.do(ctx, c, req{path: "/channels", want429: true})
		if !ok {
			return // the budget is spent (skipped) or the request failed
		}
		if ex.status == http.StatusTooManyRequests {
			errorAnswer(c, ex, http.StatusTooManyRequests, "RATE_LIMITED")
			break
		}
		if ex.status != http.StatusOK {
			c.failf(ex, "status %d before the limit was reached, want 200", ex.status)
			return
		}
		accepted++
	}
	for _, f := range []struct {
		name string
		auth authMode
	}{{"Authorization: ApiKey", authAPIKey}, {"x-api-key", authXAPIKey}} {
		ex, ok := r.do(ctx, c, req{path: "/channels", auth: f.auth, want429: true})
		if !ok {
			return
		}
		if ex.status != http.StatusTooManyRequests {
			c.failf(ex, "the %s form answered %d right after the Bearer form reached the limit (after %d requests): the forms are counted apart", f.name, ex.status, accepted)
		}
	}
}
