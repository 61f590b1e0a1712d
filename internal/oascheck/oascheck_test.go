package oascheck_test

import (
	"context"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/convoapi/convo-go/api"
	"github.com/convoapi/convo-go/internal/oascheck"
)

// TestDocumentIsValidOpenAPI303 loads the document with kin-openapi and
// validates it as OpenAPI 3.0.3 (references, schemas, examples, parameters).
func TestDocumentIsValidOpenAPI303(t *testing.T) {
	loader := openapi3.NewLoader()
	doc, err := loader.LoadFromData(api.OpenAPI())
	require.NoError(t, err)
	require.NoError(t, doc.Validate(context.Background()))
	assert.Equal(t, "3.0.3", doc.OpenAPI)
	require.Len(t, doc.Servers, 1)
	assert.Equal(t, "{base_url}", doc.Servers[0].URL)
}

// TestEveryOperationAnswersTheCommonErrors checks the rules that hold on
// every endpoint (docs/behaviour.md, "Connecting" and "Errors"): the three
// key forms, 401 UNAUTHORIZED, 429 RATE_LIMITED with Retry-After, and the
// error envelope as default.
func TestEveryOperationAnswersTheCommonErrors(t *testing.T) {
	doc, err := oascheck.Load()
	require.NoError(t, err)
	schemes := []string{}
	for _, req := range doc.Security {
		for name := range req {
			schemes = append(schemes, name)
		}
	}
	assert.ElementsMatch(t, []string{"BearerAuth", "ApiKeyAuth", "XApiKeyAuth"}, schemes)
	assert.Equal(t, "bearer", doc.Components.SecuritySchemes["BearerAuth"].Value.Scheme)
	assert.Equal(t, "Authorization", doc.Components.SecuritySchemes["ApiKeyAuth"].Value.Name)
	assert.Equal(t, "x-api-key", doc.Components.SecuritySchemes["XApiKeyAuth"].Value.Name)

	for path, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			name := method + " " + path
			assert.Nil(t, op.Security, "%s: the document-wide security applies", name)
			for _, status := range []int{401, 429} {
				assert.NotNil(t, op.Responses.Status(status), "%s: no %d", name, status)
			}
			if r := op.Responses.Status(429); r != nil {
				h := r.Value.Headers["Retry-After"]
				if assert.NotNil(t, h, "%s: 429 without Retry-After", name) {
					assert.True(t, h.Value.Required, "%s: Retry-After required", name)
				}
			}
			assert.NotNil(t, op.Responses.Default(), "%s: no default error", name)
			assert.NotEmpty(t, op.OperationID, "%s: no operationId", name)
		}
	}
}
