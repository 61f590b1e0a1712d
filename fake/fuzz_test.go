package fake_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/convoapi/convo-go/fake"
)

// FuzzServeHTTP checks that no request makes the server panic or answer
// anything but its JSON envelopes (success or error, statusCode equal to the
// HTTP status), never a 5xx, and that no write accepts a body that is not
// UTF-8. As a plain test it runs the seed corpus; `go test -fuzz
// FuzzServeHTTP` explores further.
func FuzzServeHTTP(f *testing.F) {
	seeds := []struct{ method, target, body, ctype string }{
		{"GET", "/v1/conversations?limit=%zz&status=%", "", ""},
		{"GET", "/v1/conversations/x/messages?limit=99999999999999999999", "", ""},
		{"GET", "/v1/conversations/x/messages?cursor=" + strings.Repeat("A", 5000), "", ""},
		{"GET", "/api/v1/conversations/anomalies?include=,,,unassigned,&threshold_hours=-1", "", ""},
		{"POST", "/v1/chatapp/contacts", "\xff\xfe", "application/json"},
		{"POST", "/v1/chatapp/contacts", `{"phone_number_id":null,"phone_number":["x"],"name":{}}`, "application/json"},
		{"POST", "/v1/chatapp/contacts", `{"phone_number_id":"5511900000001","phone_number":"+55 11 98765-4321","name":"Ana"}`, "application/json"},
		{"POST", "/v1/chatapp/contacts", `{"phone_number_id":"5511900000001","phone_number":"5511987654321","name":"\u0000"}`, "application/json"},
		{"PATCH", "/v1/chatapp/contacts/custom-fields", "{\"phone_number\":\"55119\xff\",\"custom_fields\":{\"a\":null}}", "application/json"},
		{"DELETE", "/v1/chatapp/contacts/tags", `{"phone_number":"+55 11 98765-4321","tag_ids":"a,b,,c"}`, "application/json"},
		{"POST", "/v1/chatapp/sequences/cancel", ``, ""},
		{"PATCH", "/v1/chatapp/contacts/custom-fields", `{"phone_number":"5511987654321","custom_fields":[]}`, "application/json; charset=utf-8"},
		{"DELETE", "/v1/chatapp/contacts/tags", `{"phone_number":"5511987654321","tag_ids":","}`, "application/json"},
		{"POST", "/v1/chatapp/sequences/cancel", `{"phone_number":"+55 11 98765-4321"}`, "text/plain"},
		{"OPTIONS", "/v1", "", ""},
		{"HEAD", "/v1/channels", "", ""},
		{"GET", "/v1/conversations?limit=1&limit=500", "", ""},
		{"GET", "/v1/conversations/abc%2Fdef/messages", "", ""},
		{"GET", "/_files/../v1/channels", "", ""},
		{"GET", "/v1/attachments/%00", "", ""},
	}
	for _, s := range seeds {
		f.Add(s.method, s.target, s.body, s.ctype)
	}
	s, err := fake.NewHandler(fake.WithClock(fake.NewManualClock(t0)), fake.WithRateLimit(0, 0), fake.WithSeed(fake.DemoSeed()))
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, method, target, body, ctype string) {
		if !strings.HasPrefix(target, "/") || strings.ContainsAny(target, " \r\n\t#") || method == "" || strings.ContainsAny(method, " \r\n\t()<>@,;:\\\"/[]?={}") {
			return
		}
		req, err := http.NewRequest(method, "http://fake.test"+target, strings.NewReader(body))
		if err != nil {
			return
		}
		req.Header.Set("x-api-key", fake.DefaultAPIKey)
		if ctype != "" {
			req.Header.Set("Content-Type", ctype)
		}
		rec := httptest.NewRecorder()
		s.Handler().ServeHTTP(rec, req)
		if strings.HasPrefix(req.URL.Path, "/_files/") && rec.Code == 200 {
			return
		}
		checkFuzzAnswer(t, method, target, body, rec)
	})
}

// checkFuzzAnswer fails t unless rec is a JSON envelope whose statusCode is
// the HTTP status (HEAD: no body), not a 5xx, and not a success for a write
// whose body is not UTF-8.
func checkFuzzAnswer(t *testing.T, method, target, body string, rec *httptest.ResponseRecorder) {
	t.Helper()
	if method == http.MethodHead {
		if rec.Body.Len() != 0 {
			t.Fatalf("HEAD %s: a body: %q", target, rec.Body.String())
		}
		return
	}
	var env struct {
		Success    *bool `json:"success"`
		StatusCode int   `json:"statusCode"`
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &env); err != nil || env.Success == nil {
		t.Fatalf("%s %s: not an envelope (%d): %q", method, target, rec.Code, rec.Body.String())
	}
	if !*env.Success && env.StatusCode != rec.Code {
		t.Fatalf("statusCode %d != HTTP %d", env.StatusCode, rec.Code)
	}
	if rec.Code >= 500 {
		t.Fatalf("%s %s: 5xx for %q: %s", method, target, body, rec.Body.String())
	}
	write := method == http.MethodPost || method == http.MethodPatch || method == http.MethodDelete
	if write && !utf8.ValidString(body) && strings.TrimSpace(body) != "" && rec.Code < 400 {
		t.Fatalf("%s %s: a body that is not UTF-8 was accepted (%d)", method, target, rec.Code)
	}
}

// The seed loader is fuzzed on its own (the endpoints: FuzzServeHTTP). As
// a plain test it runs its seed corpus only; for a longer run:
//
//	go test ./fake -run '^$' -fuzz '^FuzzLoadSeed$' -fuzztime 60s

// FuzzLoadSeed checks that no seed document panics the loader or a server
// loading it: a document is refused with an error, or loads.
func FuzzLoadSeed(f *testing.F) {
	demo, err := json.Marshal(fake.DemoSeed())
	if err != nil {
		f.Fatal(err)
	}
	f.Add(demo)
	f.Add([]byte(`{"now":"2026-11-22T10:00:00Z","companies":[{"channels":[{"ref":"c","channel":"chatapp"}],"contacts":[{"ref":"a","channel":"c","phone":"5511987654321"}],"conversations":[{"contact":"a","messages":[{"ago":"2d4h","text":"hi"},{"sender":"agent","type":"image","media":{"content":"x"}}]}]}]}`))
	f.Add([]byte(`{"companies":[{"channels":[{"channel":"sms"}]}]}`))
	f.Add([]byte(`{"companies":[{"api_key":"a"},{"api_key":"a"}]}`))
	f.Add([]byte(`{"companies":[{"contacts":[{"channel":"nope","name":"\u0000"}]}]}`))
	f.Add([]byte(`[`))
	f.Fuzz(func(t *testing.T, doc []byte) {
		seed, err := fake.LoadSeed(bytes.NewReader(doc))
		if err != nil {
			if seed != nil {
				t.Fatalf("a seed and an error: %v", err)
			}
			return
		}
		s, err := fake.NewHandler(fake.WithClock(fake.NewManualClock(t0)))
		if err != nil {
			t.Fatal(err)
		}
		_ = s.Load(seed)
	})
}
