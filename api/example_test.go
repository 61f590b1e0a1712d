package api_test

import (
	"bytes"
	"fmt"

	"github.com/convoapi/convo-go/api"
)

func ExampleOpenAPI() {
	doc := api.OpenAPI()
	first, _, _ := bytes.Cut(doc, []byte("\n"))
	fmt.Println(string(first))

	doc[0] = '#' // a copy: what the next caller reads is unchanged
	fmt.Println(bytes.Equal(api.OpenAPI(), doc))
	// Output:
	// openapi: 3.0.3
	// false
}
