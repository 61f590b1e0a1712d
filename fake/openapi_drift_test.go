package fake_test

import (
	"net/http"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/convoapi/convo-go/internal/oascheck"
)

// TestOpenAPIDriftMethods asks the fake, at the wire, which methods each
// path of the document has (a route answers 401 without a key, a known path
// with another method 405) and compares them with the document's operations.
// The route list itself is compared with the fake's source in the root
// package's drift tests; the fields and codes of its answers are checked on
// every exchange by oascheck.
func TestOpenAPIDriftMethods(t *testing.T) {
	doc, err := oascheck.Load()
	require.NoError(t, err)
	documented := oascheck.Operations(doc)
	paths := map[string]bool{}
	for _, op := range documented {
		_, p, _ := strings.Cut(op, " ")
		paths[p] = true
	}
	s := newServer(t)
	var served []string
	for p := range paths {
		url := s.URL() + strings.ReplaceAll(p, "{}", "x")
		for _, method := range []string{http.MethodGet, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete} {
			req, err := http.NewRequest(method, url, nil)
			require.NoError(t, err)
			resp, err := s.HTTPClient().Do(req)
			require.NoError(t, err)
			resp.Body.Close()
			switch resp.StatusCode {
			case http.StatusUnauthorized:
				served = append(served, method+" "+p)
			case http.StatusMethodNotAllowed:
			default:
				t.Errorf("%s %s without a key: %d, want 401 (a route) or 405", method, p, resp.StatusCode)
			}
		}
	}
	sort.Strings(served)
	assert.Equal(t, documented, served, "the document's operations vs the routes the fake serves")
}
