package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/convoapi/convo-go/fake"
)

// loadStartSeed returns the seed loaded at start: the --seed file, or the
// fake's demo data. Errors name the file, the JSON path and the reason.
func loadStartSeed(cfg *config) (*fake.Seed, error) {
	if cfg.stateFile != "" {
		if seed, ok, err := readStateFile(cfg.stateFile); ok || err != nil {
			return seed, err
		}
	}
	if cfg.seedFile == "" {
		return fake.DemoSeed(), nil
	}
	data, err := os.ReadFile(cfg.seedFile)
	if err != nil {
		return nil, fmt.Errorf("--seed: %w", err)
	}
	seed, err := loadSeed(data, fake.DefaultAPIKey)
	if err != nil {
		return nil, fmt.Errorf("--seed %s: %w", cfg.seedFile, err)
	}
	return seed, nil
}

// loadSeed reads a seed document. Before the fake reads it, it checks that
// no two companies share a key (the first one, without a key of its own,
// has defaultKey), so that the error names the companies; whatever the
// fake's error says, the keys the document names are redacted from it.
func loadSeed(data []byte, defaultKey string) (*fake.Seed, error) {
	var peek struct {
		Companies []struct {
			APIKey string `json:"api_key"`
		} `json:"companies"`
	}
	_ = json.Unmarshal(data, &peek) // a malformed document is the fake's to explain
	keys := &fake.Seed{}
	for _, co := range peek.Companies {
		keys.Companies = append(keys.Companies, fake.CompanySeed{APIKey: co.APIKey})
	}
	if err := checkSeedKeys(keys, defaultKey); err != nil {
		return nil, err
	}
	seed, err := fake.LoadSeed(bytes.NewReader(data))
	if err != nil {
		return nil, errors.New(redactSecrets(err.Error(), seedKeys(keys)...))
	}
	return seed, nil
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

// checkSeedKeys checks, before the fake loads seed, that every company has
// a key of its own: each but the first needs one (the first keeps
// defaultKey without one), and no two companies share one. Its errors name
// the companies by their place in the seed, never the key.
func checkSeedKeys(seed *fake.Seed, defaultKey string) error {
	owner := map[string]int{}
	for i, co := range seed.Companies {
		key := co.APIKey
		if i == 0 && key == "" {
			key = defaultKey
		}
		if key == "" {
			return fmt.Errorf("seed: companies[%d].api_key: missing; every company but the first needs an API key of its own", i)
		}
		if j, taken := owner[key]; taken {
			return fmt.Errorf("seed: companies[%d].api_key: the same API key as companies[%d]; every company needs an API key of its own", i, j)
		}
		owner[key] = i
	}
	return nil
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

// redactSecrets replaces each secret in text, as written or quoted the way
// Go's %q writes it, by fake.Redacted. It guards every error text convofake
// passes on from the fake: whatever the fake writes, convofake never prints
// a key.
func redactSecrets(text string, secrets ...string) string {
	for _, s := range secrets {
		if s == "" {
			continue
		}
		if q := strconv.Quote(s); q[1:len(q)-1] != s {
			text = strings.ReplaceAll(text, q[1:len(q)-1], fake.Redacted)
		}
		text = strings.ReplaceAll(text, s, fake.Redacted)
	}
	return text
}
