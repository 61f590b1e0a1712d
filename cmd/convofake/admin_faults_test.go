package main

import (
	"net/http"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestAdminFaults(t *testing.T) {
	p := startSeeded(t)

	r := p.admin(http.MethodPost, "/_fake/faults", `{"method":"GET","path":"/channels","status":429,"retry_after":30,"times":1}`)
	require.Equal(t, http.StatusCreated, r.Status, "%s", r.Body)
	assert.Positive(t, r.JSON(t)["id"].(float64))

	r = p.api("/v1/channels", seedKey)
	assert.Equal(t, http.StatusTooManyRequests, r.Status)
	assert.Equal(t, "30", r.Header.Get("Retry-After"))
	// The envelope of a fault's answer: fake's TestFaultCodesAndDetails.
	body := r.JSON(t)
	assert.Equal(t, "RATE_LIMITED", body["message"].(map[string]any)["error"])
	assert.Equal(t, "2026-11-22T10:00:00.000Z", body["timestamp"])
	assert.Equal(t, http.StatusOK, p.api("/v1/channels", seedKey).Status, "times: 1 is used up")

	// Clear every rule.
	for _, f := range []string{`{"status":503}`, `{"method":"get","path":"/conversations/*/messages","status":500,"times":3}`} {
		require.Equal(t, http.StatusCreated, p.admin(http.MethodPost, "/_fake/faults", f).Status)
	}
	assert.Equal(t, http.StatusServiceUnavailable, p.api("/v1/channels", seedKey).Status)
	require.Equal(t, http.StatusOK, p.admin(http.MethodDelete, "/_fake/faults", "").Status)
	assert.Equal(t, http.StatusOK, p.api("/v1/channels", seedKey).Status)
	assert.Equal(t, http.StatusOK, p.api("/v1/conversations/"+convID+"/messages", seedKey).Status)

	for _, bad := range []string{
		``, `{}`, `{"status":200}`, `{"status":600}`, `{"status":500,"times":-1}`, `{"status":500,"colour":"red"}`,
		`{"status":500,"path":"[oops"}`, `{"status":500,"latency":"forever"}`, `{"code":"X"}`, `{"latency":"-1s"}`,
		`{"drop":true,"retry_after":5}`,
	} {
		assertAdminError(t, p.admin(http.MethodPost, "/_fake/faults", bad), http.StatusBadRequest, "invalid_request")
	}
	assertAdminError(t, p.admin(http.MethodDelete, "/_fake/faults/abc", ""), http.StatusBadRequest, "invalid_request")
}

func TestAdminDropFault(t *testing.T) {
	p := startSeeded(t)
	require.Equal(t, http.StatusCreated, p.admin(http.MethodPost, "/_fake/faults", `{"path":"/channels","drop":true,"times":1}`).Status)
	req, err := http.NewRequest(http.MethodGet, p.base+"/v1/channels", nil)
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+seedKey)
	// A fresh connection: net/http retries a GET once when a reused
	// connection closes before answering, which would hide the drop.
	fresh := &http.Client{Timeout: safetyTimeout, Transport: &http.Transport{DisableKeepAlives: true}}
	resp, err := fresh.Do(req)
	if err == nil {
		resp.Body.Close()
		t.Fatalf("a dropped connection answered %d", resp.StatusCode)
	}
	assert.Equal(t, http.StatusOK, p.api("/v1/channels", seedKey).Status)
	// The client sees the connection close before the server logs it.
	assert.True(t, p.stderr.WaitFor("path=/v1/channels status=0", safetyTimeout), "the drop is logged with status 0:\n%s", p.stderr.String())
}

// GET /_fake/faults lists the rules; DELETE /_fake/faults/{id} is 404 for
// an unknown id or a rule that ran out.
func TestAdminFaultListingAndRemoval(t *testing.T) {
	p := startSeeded(t)
	assert.JSONEq(t, `{"items":[]}`, string(p.admin(http.MethodGet, "/_fake/faults", "").Body))
	r := p.admin(http.MethodPost, "/_fake/faults", `{"method":"get","path":"/v1/channels","status":503,"times":2,"retry_after":"30s"}`)
	require.Equal(t, http.StatusCreated, r.Status, "%s", r.Body)
	once := int(r.JSON(t)["id"].(float64))
	r = p.admin(http.MethodPost, "/_fake/faults", `{"path":"/conversations","status":409,"code":"CHANNEL_MISMATCH","details":{"expected":"chatapp"}}`)
	require.Equal(t, http.StatusCreated, r.Status, "%s", r.Body)
	always := int(r.JSON(t)["id"].(float64))

	r = p.admin(http.MethodGet, "/_fake/faults", "")
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	assert.JSONEq(t, `{"items":[
	  {"id":`+strconv.Itoa(once)+`,"method":"GET","path":"/channels","status":503,"code":"","message":"","details":null,
	   "retry_after":"30s","latency":"0s","drop":false,"times":2,"remaining":2},
	  {"id":`+strconv.Itoa(always)+`,"method":"","path":"/conversations","status":409,"code":"CHANNEL_MISMATCH","message":"","details":{"expected":"chatapp"},
	   "retry_after":"0s","latency":"0s","drop":false,"times":0,"remaining":null}]}`, string(r.Body))

	assert.Equal(t, http.StatusServiceUnavailable, p.api("/v1/channels", seedKey).Status)
	assert.Contains(t, string(p.admin(http.MethodGet, "/_fake/faults", "").Body), `"remaining": 1`)
	assert.Equal(t, http.StatusServiceUnavailable, p.api("/v1/channels", seedKey).Status)

	// The used-up rule is gone: 404; the other is removed once: 200 then 404.
	assertAdminError(t, p.admin(http.MethodDelete, "/_fake/faults/"+strconv.Itoa(once), ""), http.StatusNotFound, "not_found")
	require.Equal(t, http.StatusOK, p.admin(http.MethodDelete, "/_fake/faults/"+strconv.Itoa(always), "").Status)
	assertAdminError(t, p.admin(http.MethodDelete, "/_fake/faults/"+strconv.Itoa(always), ""), http.StatusNotFound, "not_found")
	assertAdminError(t, p.admin(http.MethodDelete, "/_fake/faults/999", ""), http.StatusNotFound, "not_found")
	assertAdminError(t, p.admin(http.MethodDelete, "/_fake/faults/0", ""), http.StatusBadRequest, "invalid_request")
	assert.JSONEq(t, `{"items":[]}`, string(p.admin(http.MethodGet, "/_fake/faults", "").Body))
	assert.Contains(t, p.admin(http.MethodGet, "/_fake/", "").JSON(t)["endpoints"], "GET /_fake/faults")
	assert.Contains(t, p.admin(http.MethodGet, "/_fake/", "").JSON(t)["endpoints"], "GET /_fake/companies")
}

// An admin body is read as strictly as the API's: a key given twice, or in
// another case than the field's, is refused naming it, never resolved by
// keeping the last.
func TestAdminBodyStrictness(t *testing.T) {
	p := start(t)
	tests := []struct{ name, method, path, body, want string }{
		{"a fault's status twice", http.MethodPost, "/_fake/faults", `{"status": 503, "status": 500}`, "status is given more than once"},
		{"a fault's status in another case", http.MethodPost, "/_fake/faults", `{"status": 503, "Status": 502}`, `Status: keys are case-sensitive: write "status"`},
		{"a clock's key twice", http.MethodPost, "/_fake/clock", `{"advance": "1h", "advance": "2h"}`, "advance is given more than once"},
		{"a seed's api_key twice", http.MethodPost, "/_fake/seed", `{"companies": [{"api_key": "k1", "api_key": "k2"}]}`, "companies[0].api_key is given more than once"},
		{"a company's key in another case", http.MethodPost, "/_fake/companies", `{"api_key": "k1", "Api_Key": "k2"}`, `Api_Key: keys are case-sensitive: write "api_key"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := p.admin(tt.method, tt.path, tt.body)
			require.Equal(t, http.StatusBadRequest, r.Status, "%s", r.Body)
			assert.Contains(t, r.JSON(t)["message"], tt.want)
		})
	}
	assert.Equal(t, []any{}, p.admin(http.MethodGet, "/_fake/faults", "").JSON(t)["items"], "no rule installed")
}
