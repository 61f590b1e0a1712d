package fake_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	convo "github.com/convoapi/convo-go"
	"github.com/convoapi/convo-go/fake"
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

// TestOpenAPIDriftBounds sends every integer query parameter of the document
// at its bounds and one past them: the fake must accept the bounds and
// refuse the others with 400 INVALID_PARAM, and apply the documented
// default where the answer shows it (the anomaly threshold).
func TestOpenAPIDriftBounds(t *testing.T) {
	doc, err := oascheck.Load()
	require.NoError(t, err)
	s := newServer(t)
	co := s.Company()
	line := co.AddChannel(fake.ChannelAccount{Channel: convo.ChannelChatapp, DisplayName: "Sales", ProviderIdentifier: "5511900000000"})
	ana := co.AddContact(fake.Contact{ChannelAccountID: line, PhoneNumber: "5511987654321", Name: "Ana"})
	conv := co.AddConversation(fake.Conversation{ContactID: ana})

	checked := 0
	for path, item := range doc.Paths.Map() {
		op := item.Get
		if op == nil || strings.Contains(strings.ReplaceAll(path, "{conversation_id}", ""), "{") {
			continue
		}
		url := "/v1" + strings.ReplaceAll(path, "{conversation_id}", conv)
		for _, p := range op.Parameters {
			sc := p.Value.Schema.Value
			if p.Value.In != "query" || !sc.Type.Is("integer") || sc.Min == nil || sc.Max == nil {
				continue
			}
			lo, hi := int(*sc.Min), int(*sc.Max)
			for v, want := range map[int]int{lo: 200, hi: 200, lo - 1: 400, hi + 1: 400} {
				r := call(t, s, http.MethodGet, fmt.Sprintf("%s?%s=%d", url, p.Value.Name, v), nil)
				assert.Equal(t, want, r.Status, "%s %s=%d: %s", op.OperationID, p.Value.Name, v, r.Body)
				if want == 400 {
					assert.Contains(t, string(r.Body), `"INVALID_PARAM"`)
				}
				checked++
			}
		}
	}
	assert.Equal(t, 4*4, checked, "limit of messages, conversations, anomalies and threshold_hours, four values each")

	threshold := oascheck.Operation(doc, "getAnomalies").Parameters.GetByInAndName("query", "threshold_hours").Schema.Value.Default
	r := call(t, s, http.MethodGet, "/v1/conversations/anomalies", nil)
	assert.JSONEq(t, fmt.Sprint(threshold), windowThreshold(t, r))
}

// windowThreshold returns data.window.threshold_hours of an anomaly
// report, as JSON.
func windowThreshold(t *testing.T, r resp) string {
	t.Helper()
	var body struct {
		Data struct {
			Window struct {
				ThresholdHours json.RawMessage `json:"threshold_hours"`
			} `json:"window"`
		} `json:"data"`
	}
	require.NoError(t, json.Unmarshal(r.Body, &body), "%s", r.Body)
	return string(body.Data.Window.ThresholdHours)
}
