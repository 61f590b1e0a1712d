package main

import (
	"bytes"
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
	seed, err := loadSeed(data)
	if err != nil {
		return nil, fmt.Errorf("--seed %s: %w", cfg.seedFile, err)
	}
	return seed, nil
}

// loadSeed reads a seed document with fake.LoadSeed, which checks it
// whole (keys included) and names the place of what is wrong.
func loadSeed(data []byte) (*fake.Seed, error) {
	return fake.LoadSeed(bytes.NewReader(data))
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
