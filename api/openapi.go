// Package api holds the service's OpenAPI 3.0.3 document, the machine-readable
// form of its interface specification that the SDK, the fake and convofake are
// checked against. It has no dependencies, so that any binary can serve it.
package api

import (
	"bytes"
	_ "embed"
)

//go:embed openapi.yaml
var openAPI []byte

// OpenAPI returns the document (YAML), as shipped in api/openapi.yaml. Each
// call returns a fresh copy, so that no caller can change what another reads.
func OpenAPI() []byte { return bytes.Clone(openAPI) }
