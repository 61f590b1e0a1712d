package fake_test

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/convoapi/convo-go/fake"
)

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
