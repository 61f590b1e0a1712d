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
		{id: authGateID, basis: BasisSpec, fn: checkKeyForms,
			title: "the three key forms (Bearer, ApiKey, x-api-key) are accepted and answer alike"},
		{id: "auth/missing-key", basis: BasisSpec, fn: checkBadKey(authNone),
			title: "a request without a key is refused: 401 UNAUTHORIZED, \"" + unauthorizedText + "\""},
		{id: "auth/wrong-key", basis: BasisSpec, fn: checkBadKey(authWrong),
			title: "a request with a wrong key is refused: 401 UNAUTHORIZED, \"" + unauthorizedText + "\""},
		{id: "auth/key-in-query", basis: BasisSpec, fn: checkBadKey(authQuery),
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
