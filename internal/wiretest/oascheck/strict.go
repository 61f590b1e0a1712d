package oascheck

import (
	"fmt"

	"github.com/getkin/kin-openapi/openapi3"
)

// ExtensibleEnum is the extension under which the document lists the
// values known today of a string the specification does not close (message
// type and status, the error code): a client keeps a value it does not
// know.
const ExtensibleEnum = "x-extensible-enum"

// uuidPattern is the textual form of a UUID (RFC 9562), any version.
const uuidPattern = `^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`

// schemaOptions make the validator check the formats (date-time; uuid as
// uuidPattern) as well as the types. Every id the fake shows is a UUID: it
// refuses a seed id that is not one, unless a test builds it with
// fake.WithReadableIDs, whose answers then fail this check wherever such an
// id shows.
func schemaOptions() []openapi3.SchemaValidationOption {
	uuid := openapi3.NewRegexpFormatValidator(uuidPattern)
	return []openapi3.SchemaValidationOption{
		openapi3.EnableFormatValidation(),
		openapi3.WithStringFormatValidator("uuid", uuid),
	}
}

// Strict turns the published document, open where the specification is,
// into the reading the tests validate the fake against: every object of an
// answer that lists its properties and says nothing of others is closed
// (additionalProperties: false), and every x-extensible-enum but the error
// code's becomes an enum. The error code stays open because a fault rule
// may answer any code. Request bodies stay as published. Strict changes doc
// in place.
func Strict(doc *openapi3.T) {
	errorCode := doc.Components.Schemas["ErrorCode"]
	seen := map[*openapi3.Schema]bool{}
	if errorCode != nil {
		seen[errorCode.Value] = true
	}
	for _, item := range doc.Paths.Map() {
		for _, op := range item.Operations() {
			for _, resp := range op.Responses.Map() {
				for _, media := range resp.Value.Content {
					closeSchema(media.Schema, seen)
				}
			}
		}
	}
}

// closeSchema closes ref's schema and every schema under it, once each.
func closeSchema(ref *openapi3.SchemaRef, seen map[*openapi3.Schema]bool) {
	if ref == nil || ref.Value == nil || seen[ref.Value] {
		return
	}
	s := ref.Value
	seen[s] = true
	if s.Type.Is(openapi3.TypeObject) && len(s.Properties) > 0 && s.AdditionalProperties.Has == nil && s.AdditionalProperties.Schema == nil {
		closed := false
		s.AdditionalProperties.Has = &closed
	}
	if values, ok := s.Extensions[ExtensibleEnum].([]any); ok && len(s.Enum) == 0 {
		s.Enum = append([]any(nil), values...)
		if s.Nullable {
			s.Enum = append(s.Enum, nil)
		}
	}
	for _, sub := range s.Properties {
		closeSchema(sub, seen)
	}
	for _, list := range []openapi3.SchemaRefs{s.AllOf, s.OneOf, s.AnyOf} {
		for _, sub := range list {
			closeSchema(sub, seen)
		}
	}
	closeSchema(s.Items, seen)
	closeSchema(s.AdditionalProperties.Schema, seen)
}

// enumValues lists a schema's enum, or its x-extensible-enum.
func enumValues(s *openapi3.Schema) []string {
	values := s.Enum
	if len(values) == 0 {
		values, _ = s.Extensions[ExtensibleEnum].([]any)
	}
	out := make([]string, 0, len(values))
	for _, v := range values {
		if v != nil {
			out = append(out, fmt.Sprint(v))
		}
	}
	return out
}
