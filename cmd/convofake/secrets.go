package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"strings"
)

// The environment variables a secret can come from, so that it shows in no
// process list.
const (
	envAPIKey     = "CONVOFAKE_API_KEY"
	envAdminToken = "CONVOFAKE_ADMIN_TOKEN"
)

// declareSecretFlags declares --api-key-file and --admin-token-file.
func declareSecretFlags(fs *flag.FlagSet, cfg *config) {
	fs.StringVar(&cfg.apiKeyFile, "api-key-file", "",
		"read the API key of the default company from `FILE` (its whole content, surrounding spaces and newlines dropped), "+
			"instead of --api-key, which the process list shows. Without either: $"+envAPIKey+" when set")
	fs.StringVar(&cfg.adminTokenFile, "admin-token-file", "",
		"read the admin token from `FILE` instead of --admin-token. Without either: $"+envAdminToken+" when set, else random")
}

// readSecrets fills the API key and the admin token from their file or
// their environment variable when their flag is not given; such a secret
// is not printed at start.
func (cfg *config) readSecrets() error {
	key, keyFrom, err := secret("--api-key", cfg.apiKey, cfg.apiKeySet, cfg.apiKeyFile, envAPIKey)
	if err != nil {
		return err
	}
	if keyFrom != "" {
		cfg.apiKey, cfg.apiKeySet, cfg.apiKeyFrom = key, true, keyFrom
	}
	token, tokenFrom, err := secret("--admin-token", cfg.adminToken, cfg.adminToken != "", cfg.adminTokenFile, envAdminToken)
	if err != nil {
		return err
	}
	if tokenFrom != "" {
		cfg.adminToken, cfg.adminTokenFrom = token, tokenFrom
	}
	return nil
}

// secret resolves one secret: the flag when given, else the file when
// given, else the environment variable when set and not empty. from names
// the file or the variable ("" when the flag wins or nothing is set).
func secret(flagName, flagValue string, flagSet bool, file, env string) (value, from string, err error) {
	switch {
	case flagSet && file != "":
		return "", "", fmt.Errorf("%s and %s-file: give one", flagName, flagName)
	case flagSet:
		return flagValue, "", nil
	case file != "":
		b, err := os.ReadFile(file)
		if err != nil {
			return "", "", fmt.Errorf("%s-file: %w", flagName, err)
		}
		v := strings.TrimSpace(string(b))
		if v == "" {
			return "", "", fmt.Errorf("%s-file %s: the file is empty", flagName, file)
		}
		if strings.ContainsAny(v, "\r\n") {
			return "", "", errors.New(flagName + "-file " + file + ": more than one line")
		}
		return v, flagName + "-file " + file, nil
	}
	if v := strings.TrimSpace(os.Getenv(env)); v != "" {
		return v, "$" + env, nil
	}
	return "", "", nil
}
