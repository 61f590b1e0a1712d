package fake_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"
	"unicode/utf8"

	"github.com/convoapi/convo-go/fake"
)

// The write endpoints and the seed loader are fuzzed one by one. As plain
// tests (go test) each runs its seed corpus only; for a longer run, e.g.
//
//	go test ./fake -run '^$' -fuzz '^FuzzCreateContact$' -fuzztime 60s
//
// (one target per run, as go test -fuzz requires).

// fuzzWrite checks one write endpoint: whatever the body and Content-Type,
// the answer is a well-formed envelope whose statusCode is the HTTP status,
// never a 5xx; a body that is not UTF-8 is always refused.
func fuzzWrite(f *testing.F, method, path string, seeds ...string) {
	f.Helper()
	for _, s := range seeds {
		f.Add([]byte(s), "application/json")
	}
	f.Add([]byte("{\"phone_number\":\"55119\xff\"}"), "application/json")
	f.Add([]byte(`{"phone_number":"5511987654321","name":"\u0000"}`), "application/json; charset=utf-8")
	f.Add([]byte(`{"phone_number":"5511987654321"}`), "text/plain")
	f.Add([]byte(``), "")
	s, err := fake.NewHandler(fake.WithClock(fake.NewManualClock(t0)), fake.WithRateLimit(0, 0), fake.WithSeed(fake.DemoSeed()))
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, body []byte, ctype string) {
		req := httptest.NewRequest(method, path, bytes.NewReader(body))
		req.Header.Set("X-Api-Key", fake.DefaultAPIKey)
		req.Header.Set("Content-Type", ctype)
		rec := httptest.NewRecorder()
		s.Handler().ServeHTTP(rec, req)
		var env struct {
			Success    *bool `json:"success"`
			StatusCode int   `json:"statusCode"`
		}
		if err := json.Unmarshal(rec.Body.Bytes(), &env); err != nil || env.Success == nil {
			t.Fatalf("not an envelope (%d): %q", rec.Code, rec.Body.String())
		}
		if rec.Code >= 500 {
			t.Fatalf("5xx for %q: %s", body, rec.Body.String())
		}
		if !*env.Success && env.StatusCode != rec.Code {
			t.Fatalf("statusCode %d != HTTP %d", env.StatusCode, rec.Code)
		}
		if !utf8.Valid(body) && len(bytes.TrimSpace(body)) > 0 && rec.Code < 400 {
			t.Fatalf("a body that is not UTF-8 was accepted (%d)", rec.Code)
		}
	})
}

func FuzzCreateContact(f *testing.F) {
	fuzzWrite(f, http.MethodPost, "/v1/chatapp/contacts",
		`{"phone_number_id":"5511900000001","phone_number":"+55 11 91234-0000","name":"Zed"}`,
		`{"phone_number_id":"5511900000001","phone_number":"+55 11 98765-4321","name":"Ana"}`,
		`{"phone_number_id":null,"phone_number":["x"],"name":{}}`)
}

func FuzzUpdateCustomFields(f *testing.F) {
	fuzzWrite(f, http.MethodPatch, "/v1/chatapp/contacts/custom-fields",
		`{"phone_number":"+55 11 98765-4321","custom_fields":{"plan":"gold"}}`,
		`{"phone_number":"+55 11 98765-4321","custom_fields":{"a":null}}`,
		`{"phone_number":"5511987654321","custom_fields":[]}`)
}

func FuzzRemoveTags(f *testing.F) {
	fuzzWrite(f, http.MethodDelete, "/v1/chatapp/contacts/tags",
		`{"phone_number":"+55 11 98765-4321","tag_ids":"a,b,,c"}`,
		`{"phone_number":"5511987654321","tag_ids":","}`)
}

func FuzzCancelSequence(f *testing.F) {
	fuzzWrite(f, http.MethodPost, "/v1/chatapp/sequences/cancel",
		`{"phone_number":"+55 11 98765-4321"}`,
		`{"phone_number_id":"x","phone_number":"1"}`)
}

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
