package fake

import (
	"bytes"
	_ "embed"
	"encoding/json"
)

// demoSeed is the demo data: a seed document (SEED.md).
//
//go:embed demo-seed.json
var demoSeed []byte

// DemoSeed returns pleasant demo data for examples and cmd/convofake: one
// company (the default key) with two chatapp numbers, a botapp bot and a
// webchat widget; nine contacts (one phone on two numbers); eleven
// conversations with open, resolved and archived statuses, assigned and not;
// about forty messages with text, available image, document and audio media,
// media in unknown and no_reference status, reactions, a system and an
// unsupported message. Times are relative to the clock's now when loaded:
// some conversations wait unanswered for a few hours, one was answered only
// by automation, two were never engaged, one is too recent for the anomaly
// threshold, one is older than the 30-day read window.
//
// Each call returns a fresh value; callers may modify it.
func DemoSeed() *Seed {
	dec := json.NewDecoder(bytes.NewReader(demoSeed))
	dec.DisallowUnknownFields()
	var seed Seed
	must(dec.Decode(&seed)) // the package's own data: a test loads it
	return &seed
}
