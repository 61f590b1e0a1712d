package main

import (
	"flag"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The README says how to install convofake and lists every flag with its
// placeholder, as -h shows it.
func TestREADMEDocumentsInstallAndEveryFlag(t *testing.T) {
	b, err := os.ReadFile("README.md")
	require.NoError(t, err)
	readme := string(b)
	for _, want := range []string{
		"go install github.com/convoapi/convo-go/cmd/convofake@latest",
		"go get -tool github.com/convoapi/convo-go/cmd/convofake@latest",
		"go tool convofake",
		"### Exit codes",
		"try --addr 127.0.0.1:0",
	} {
		assert.Contains(t, readme, want)
	}
	newFlagSet(&config{}).VisitAll(func(f *flag.Flag) {
		name, _ := flag.UnquoteUsage(f)
		if _, isBool := f.Value.(interface{ IsBoolFlag() bool }); isBool {
			assert.Contains(t, readme, "| `--"+f.Name+"` |")
			return
		}
		assert.Contains(t, readme, "| `--"+f.Name+" "+name+"` |", "the flags table")
	})
}
