package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"

	"github.com/convoapi/convo-go/fake"
	"github.com/convoapi/convo-go/internal/keymatch"
)

// loadStartSeed returns the seed loaded at start when --state has none:
// the --seed file (read up to --max-seed-size), with the document it was
// decoded from (readSeedFile), or the fake's demo data (doc nil). Errors
// name the file, the JSON path and the reason.
func loadStartSeed(cfg *config) (seed *fake.Seed, doc []byte, err error) {
	if cfg.seedFile == "" {
		return fake.DemoSeed(), nil, nil
	}
	seed, doc, err = readSeedFile("--seed", cfg.seedFile, int64(cfg.maxSeedSize))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, fmt.Errorf("--seed: %w", err)
	}
	return seed, doc, err
}

// loadSeed decodes a seed document with fake.DecodeSeed, as strictly as
// the fake reads any (it names the place of what is wrong); the fake
// checks its content as it loads it.
func loadSeed(r io.Reader) (*fake.Seed, error) {
	return fake.DecodeSeed(r)
}

// keySource says where the start API key comes from, for the lines printed
// at start.
type keySource int

const (
	keyDefault keySource = iota // fake.DefaultAPIKey
	keyFlag                     // --api-key
	keySeed                     // companies[0].api_key of the --seed file
)

// startAPIKey resolves the default company's key at start: --api-key when
// given, else the seed's companies[0].api_key, else fake.DefaultAPIKey. It
// writes the winner into the seed, so that loading it keeps that key.
func startAPIKey(cfg *config, seed *fake.Seed) (string, keySource) {
	if len(seed.Companies) == 0 {
		seed.Companies = []fake.CompanySeed{{}}
	}
	first := &seed.Companies[0]
	switch {
	case cfg.apiKeySet:
		first.APIKey = cfg.apiKey
		return cfg.apiKey, keyFlag
	case first.APIKey != "" && cfg.seedFile != "":
		return first.APIKey, keySeed
	case first.APIKey != "":
		return first.APIKey, keyDefault
	}
	first.APIKey = fake.DefaultAPIKey
	return fake.DefaultAPIKey, keyDefault
}

// seedKeys returns the API keys a seed names, for redactSecrets.
func seedKeys(seed *fake.Seed) []string {
	var keys []string
	for _, co := range seed.Companies {
		keys = append(keys, co.APIKey)
	}
	return keys
}

// serverKeys returns the API keys of every company of srv.
func serverKeys(srv *fake.Server) []string {
	var keys []string
	for _, co := range srv.Companies() {
		keys = append(keys, co.APIKey())
	}
	return keys
}

// redactSecrets replaces each secret in text, as written or escaped in any
// way (Go's %q, JSON, URL, HTML, once or twice over), by fake.Redacted,
// with the module's one key matcher (internal/keymatch). It guards every
// error text convofake passes on from the fake: whatever the fake writes,
// convofake never prints a key.
func redactSecrets(text string, secrets ...string) string {
	return keymatch.New(secrets...).Redact(text)
}
