package wiretest

import (
	"fmt"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/convoapi/convo-go/fake"
	"github.com/convoapi/convo-go/internal/wiretest/oascheck"
)

// TestOpenAPIDriftMethods asks the fake, at the wire, which methods each
// path of the document has (a route answers 401 without a key, a known path
// with another method 405) and compares them with the document's operations.
// The route list itself is compared with the fake's source in
// TestOpenAPIDriftEndpoints; the fields and codes of its answers are
// checked on every exchange of the fake's tests (TestRecordedExchanges).
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

// Every integer query parameter of api/openapi.yaml (limit of listMessages,
// listConversations and getAnomalies, threshold_hours of getAnomalies)
// takes plain decimal digits only, leading zeros allowed, within the
// document's bounds; anything else is INVALID_PARAM naming the parameter
// and its bounds (docs/behaviour.md, Strict input). Read from the document,
// so that the fake cannot drift from it; the anomaly threshold's default is
// the document's too. (The fake's own tests check the rest of strict input.)
func TestIntegerParameters(t *testing.T) {
	doc, err := oascheck.Load()
	require.NoError(t, err)
	s := newServer(t)
	co := s.Company()
	chat := co.AddChannel(fake.ChannelAccount{Channel: "chatapp", DisplayName: "Support", ProviderIdentifier: "5511900000001"})
	ana := co.AddContact(fake.Contact{ChannelAccountID: chat, PhoneNumber: "5511987654321", Name: "Ana"})
	conv := co.AddConversation(fake.Conversation{ContactID: ana})
	checked := 0
	for path, item := range doc.Paths.Map() {
		if item.Get == nil || strings.Contains(strings.ReplaceAll(path, "{conversation_id}", ""), "{") {
			continue
		}
		path = strings.ReplaceAll(path, "{conversation_id}", conv)
		for _, p := range item.Get.Parameters {
			sc := p.Value.Schema.Value
			if p.Value.In != "query" || !sc.Type.Is("integer") || sc.Min == nil || sc.Max == nil {
				continue
			}
			checked++
			lo, hi := int(*sc.Min), int(*sc.Max)
			values := map[string]bool{"": false, " 5": false, "5 ": false, "+5": false, "-1": false, "1e2": false,
				"5.0": false, "0x10": false, "abc": false, "99999999999999999999999": false, "05": true, "0000005": true,
				fmt.Sprint(lo - 1): false, fmt.Sprint(lo): true, fmt.Sprint(hi): true, fmt.Sprint(hi + 1): false}
			for v, ok := range values {
				t.Run(item.Get.OperationID+" "+p.Value.Name+"="+v, func(t *testing.T) {
					r := get(t, s, path+"?"+p.Value.Name+"="+url.QueryEscape(v))
					if ok {
						assert.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
						return
					}
					require.Equal(t, http.StatusBadRequest, r.Status, "%s", r.Body)
					env := r.JSON(t)
					assert.Equal(t, "/api/v1"+path, env["path"])
					assert.Equal(t, "GET", env["method"])
					assert.Equal(t, map[string]any{"error": "INVALID_PARAM", "message": fmt.Sprintf("%s must be an integer from %d to %d", p.Value.Name, lo, hi)}, env["message"])
				})
			}
		}
	}
	assert.Equal(t, 4, checked, "limit of messages, conversations, anomalies and threshold_hours")

	threshold := oascheck.Operation(doc, "getAnomalies").Parameters.GetByInAndName("query", "threshold_hours").Schema.Value.Default
	window := get(t, s, "/conversations/anomalies").JSON(t)["data"].(map[string]any)["window"].(map[string]any)
	assert.Equal(t, threshold, window["threshold_hours"])
}
