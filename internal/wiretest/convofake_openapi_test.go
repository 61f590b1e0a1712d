package wiretest

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/convoapi/convo-go/internal/testkit"
	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers/legacy"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A tool that routes by the document's server URL ({scheme}://{host}/v1),
// here kin-openapi's router and validator with their defaults, routes and
// validates convofake's real exchanges at /v1 against the document
// convofake serves, as they are. (The suite's own checks use the strict
// reading; this is the published one.)
func TestThePublishedDocumentRoutesAndValidatesExchangesAtV1(t *testing.T) {
	p := startSeeded(t)
	resp, err := http.Get(p.base + "/openapi.yaml")
	require.NoError(t, err)
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	doc, err := openapi3.NewLoader().LoadFromData(body)
	require.NoError(t, err)
	assert.Equal(t, "3.0.3", doc.OpenAPI)
	router, err := legacy.NewRouter(doc)
	require.NoError(t, err)

	for _, tc := range []struct {
		method, path, body, key string
		status                  int
		operation               string
	}{
		{http.MethodGet, "/v1/channels", "", seedKey, 200, "listChannels"},
		{http.MethodGet, "/v1/conversations?status=all", "", seedKey, 200, "listConversations"},
		{http.MethodGet, "/v1/conversations/anomalies?include=unassigned,automation_only", "", seedKey, 200, "getAnomalies"},
		{http.MethodGet, "/v1/conversations/" + convID + "/messages", "", seedKey, 200, "listMessages"},
		{http.MethodGet, "/v1/chatapp/contacts/lookup?phone_number=5511987654321", "", seedKey, 200, "lookupContact"},
		{http.MethodPost, "/v1/chatapp/contacts", `{"phone_number_id":"5511940000001","phone_number":"5511999990000","name":"Novo"}`, seedKey, 201, "createContact"},
		{http.MethodGet, "/v1/conversations/not-a-conversation/messages", "", seedKey, 404, "listMessages"},
		{http.MethodGet, "/v1/channels", "", "wrong-key", 401, "listChannels"},
	} {
		t.Run(tc.method+" "+tc.path, func(t *testing.T) {
			r := testkit.Send(t, http.DefaultClient, tc.method, p.base+tc.path, "Bearer "+tc.key, tc.body)
			require.Equal(t, tc.status, r.Status, "%s", r.Body)
			req := httptest.NewRequest(tc.method, p.base+tc.path, strings.NewReader(tc.body))
			req.Header.Set("Authorization", "Bearer "+tc.key)
			req.Header.Set("Content-Type", "application/json")
			route, params, err := router.FindRoute(req)
			require.NoError(t, err)
			assert.Equal(t, tc.operation, route.Operation.OperationID)
			opts := &openapi3filter.Options{AuthenticationFunc: openapi3filter.NoopAuthenticationFunc}
			in := &openapi3filter.RequestValidationInput{Request: req, PathParams: params, Route: route, Options: opts}
			if tc.status < 400 {
				require.NoError(t, openapi3filter.ValidateRequest(context.Background(), in))
			}
			out := &openapi3filter.ResponseValidationInput{RequestValidationInput: in, Status: r.Status, Header: r.Header, Options: opts}
			out.SetBodyBytes(r.Body)
			assert.NoError(t, openapi3filter.ValidateResponse(context.Background(), out))
		})
	}
	_, _, err = router.FindRoute(httptest.NewRequest(http.MethodGet, p.base+"/channels", nil))
	assert.Error(t, err, "the base path /v1 is part of the server URL")
}
