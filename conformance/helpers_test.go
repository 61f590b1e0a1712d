package conformance_test

import (
	"testing"

	"github.com/convoapi/convo-go/fake"
	"github.com/stretchr/testify/require"
)

// demoHandler is a fake with the demo data, served by no listener of its
// own.
func demoHandler(t *testing.T, opts ...fake.Option) *fake.Server {
	t.Helper()
	s, err := fake.NewHandler(append([]fake.Option{fake.WithSeed(fake.DemoSeed())}, opts...)...)
	require.NoError(t, err)
	return s
}

// JSON navigation for the edits of recordings.

func data(body map[string]any) map[string]any { d, _ := body["data"].(map[string]any); return d }

func items(body map[string]any) []any { a, _ := data(body)["items"].([]any); return a }

func errMessage(body map[string]any) map[string]any {
	m, _ := body["message"].(map[string]any)
	return m
}
