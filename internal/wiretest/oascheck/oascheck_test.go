package oascheck_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/convoapi/convo-go/api"
	"github.com/convoapi/convo-go/internal/wiretest/oascheck"
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
	assert.Equal(t, "{scheme}://{host}/v1", doc.Servers[0].URL, "the base path /v1 is in the URL, for tools that route by it")
	assert.Equal(t, "http", doc.Servers[0].Variables["scheme"].Default)
	assert.Equal(t, "127.0.0.1:8080", doc.Servers[0].Variables["host"].Default, "convofake's default --addr")
}

// The published document is open where the specification is (no closed
// object, the values of message type and status and of the error code
// extensible), states nullable where strict OpenAPI 3.0.3 tools honour it
// (beside a type), and marks the ids the specification calls UUIDs.
func TestPublishedDocumentTravels(t *testing.T) {
	doc, err := oascheck.Load()
	require.NoError(t, err)
	for name, s := range allSchemas(doc) {
		if s.AdditionalProperties.Has != nil {
			assert.True(t, *s.AdditionalProperties.Has, "%s: closed", name)
		}
		if s.Nullable {
			assert.NotEmpty(t, s.Type.Slice(), "%s: nullable without a type is ignored by strict 3.0.3 tools", name)
		}
	}
	for _, name := range []string{"MessageType", "Message.status", "ErrorCode"} {
		s, err := oascheck.Schema(doc, name)
		require.NoError(t, err)
		assert.Empty(t, s.Enum, name)
		assert.NotEmpty(t, s.Extensions[oascheck.ExtensibleEnum], name)
	}
	for _, name := range []string{"ChannelAccount.id", "Conversation.id", "Conversation.contact_id", "Conversation.channel_account_id",
		"AnomalyItem.conversation_id", "AnomalyItem.contact_id", "AnomalyItem.channel_account_id", "Contact.id"} {
		s, err := oascheck.Schema(doc, name)
		require.NoError(t, err)
		assert.Equal(t, "uuid", s.Format, name)
	}
}

// The strict reading the tests validate against closes every answer object
// and the extensible lists, but leaves open the error code (a fault rule
// may answer any) and the request bodies.
func TestStrictReading(t *testing.T) {
	doc, err := oascheck.Load()
	require.NoError(t, err)
	oascheck.Strict(doc)
	for _, name := range []string{"Message", "Media", "Reaction", "Conversation", "Attachment", "ErrorEnvelope", "ErrorMessage", "AnomalyReport.buckets"} {
		s, err := oascheck.Schema(doc, name)
		require.NoError(t, err)
		if assert.NotNil(t, s.AdditionalProperties.Has, name) {
			assert.False(t, *s.AdditionalProperties.Has, name)
		}
	}
	for _, name := range []string{"CreateContactRequest", "AnomalyReport.window.ceiling_hours_by_channel"} {
		s, err := oascheck.Schema(doc, name)
		require.NoError(t, err)
		assert.True(t, s.AdditionalProperties.Has == nil || *s.AdditionalProperties.Has, name)
	}
	s, err := oascheck.Schema(doc, "MessageType")
	require.NoError(t, err)
	assert.Contains(t, s.Enum, "text")
	s, err = oascheck.Schema(doc, "Message.status")
	require.NoError(t, err)
	assert.Contains(t, s.Enum, nil, "null stays allowed")
	s, err = oascheck.Schema(doc, "ErrorCode")
	require.NoError(t, err)
	assert.Empty(t, s.Enum)
}

// allSchemas lists every schema of the components, by dotted name, down
// through properties, items and allOf/oneOf.
func allSchemas(doc *openapi3.T) map[string]*openapi3.Schema {
	out := map[string]*openapi3.Schema{}
	var walk func(name string, ref *openapi3.SchemaRef)
	walk = func(name string, ref *openapi3.SchemaRef) {
		if ref == nil || ref.Value == nil || (ref.Ref != "" && strings.Contains(name, ".")) {
			return // a $ref is walked under its own name
		}
		out[name] = ref.Value
		for p, sub := range ref.Value.Properties {
			walk(name+"."+p, sub)
		}
		for i, sub := range append(append(openapi3.SchemaRefs{}, ref.Value.AllOf...), ref.Value.OneOf...) {
			walk(fmt.Sprintf("%s[%d]", name, i), sub)
		}
		walk(name+"[]", ref.Value.Items)
	}
	for name, ref := range doc.Components.Schemas {
		walk(name, ref)
	}
	return out
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
