package main

import (
	"testing"

	"github.com/convoapi/convo-go/internal/oascheck"
)

// TestMain checks every request and answer of the fake in these tests
// against api/openapi.yaml.
func TestMain(m *testing.M) { oascheck.Main(m) }
