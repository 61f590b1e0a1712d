// Package api holds the service's OpenAPI 3.0.3 document, the machine-readable
// form of its interface specification that the SDK, the fake and convofake are
// checked against. It has no dependencies, so that any binary can serve it.
package api

import _ "embed"

// OpenAPI is the document (YAML), as shipped in api/openapi.yaml.
//
//go:embed openapi.yaml
var OpenAPI []byte
