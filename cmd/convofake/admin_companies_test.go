package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/convoapi/convo-go/fake"
)

// tenantJob is one test job on a shared convofake: it creates its company,
// then writes and reads with its key. It runs in its own goroutine, so it
// reports errors instead of failing the test.
type tenantJob struct {
	p      *proc
	n      int
	id     string
	key    string
	phones []string
}

func (j *tenantJob) call(method, path, auth, body string) (int, []byte, error) {
	req, err := http.NewRequest(method, j.p.base+path, strings.NewReader(body))
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("Authorization", auth)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	res, err := j.p.client.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	return res.StatusCode, b, err
}

func (j *tenantJob) run() error {
	seed := fmt.Sprintf(`{"channels": [{"ref": "a", "channel": "chatapp", "provider_identifier": "55119400%05d"}]}`, j.n)
	status, body, err := j.call(http.MethodPost, "/_fake/companies", "Bearer "+testAdminToken, seed)
	if err != nil || status != http.StatusCreated {
		return fmt.Errorf("create: %d %s %v", status, body, err)
	}
	var created createdJSON
	if err := json.Unmarshal(body, &created); err != nil {
		return err
	}
	j.id, j.key = created.ID, created.APIKey
	for i := range 50 {
		phone := fmt.Sprintf("55%d1%09d", j.n, i)
		j.phones = append(j.phones, phone)
		status, body, err := j.call(http.MethodPost, "/v1/chatapp/contacts", "Bearer "+j.key,
			fmt.Sprintf(`{"phone_number_id":"55119400%05d","phone_number":"%s","name":"Job %d"}`, j.n, phone, j.n))
		if err != nil || status != http.StatusCreated {
			return fmt.Errorf("contact %d: %d %s %v", i, status, body, err)
		}
		if status, body, err := j.call(http.MethodGet, "/v1/channels", "Bearer "+j.key, ""); err != nil || status != http.StatusOK {
			return fmt.Errorf("channels: %d %s %v", status, body, err)
		}
	}
	return nil
}

// Two jobs create their companies over HTTP at the same time and work in
// them: neither sees a request or a record of the other.
func TestAdminCompaniesIsolateParallelJobs(t *testing.T) {
	p := start(t, "--rate-limit", "0")
	jobs := []*tenantJob{{p: p, n: 1}, {p: p, n: 2}}
	var wg sync.WaitGroup
	errs := make([]error, len(jobs))
	for i, j := range jobs {
		wg.Go(func() { errs[i] = j.run() })
	}
	wg.Wait()
	for _, err := range errs {
		require.NoError(t, err)
	}
	for i, j := range jobs {
		other := jobs[1-i]
		for _, who := range []string{j.id, j.key} {
			reqs := p.admin(http.MethodGet, "/_fake/requests?company="+who, "").json(t)
			assert.EqualValues(t, 100, reqs["count"], "its own 100 requests, none of the other's")
			for _, it := range reqs["items"].([]any) {
				assert.Equal(t, j.id, it.(map[string]any)["company_id"])
			}
		}
		contacts := p.admin(http.MethodGet, "/_fake/state/contacts?company="+j.key, "").json(t)["items"].([]any)
		assert.Len(t, contacts, 50)
		seed := p.admin(http.MethodGet, "/_fake/seed?company="+j.id, "")
		assert.NotContains(t, string(seed.body), other.phones[0])
		assert.NotContains(t, string(seed.body), other.key)
		// Its key does not reach the other's contacts.
		r := p.do(http.MethodGet, "/v1/chatapp/contacts/lookup?phone_number="+other.phones[0], "Bearer "+j.key, "")
		assert.Equal(t, http.StatusNotFound, r.status, "%s", r.body)
	}
	companies := p.admin(http.MethodGet, "/_fake/companies", "").json(t)["items"].([]any)
	assert.Len(t, companies, 3, "the default company and the two jobs'")
}

// A company is reset, its journal cleared and its seed read alone.
func TestAdminCompanyResetAndJournal(t *testing.T) {
	p := start(t)
	r := p.admin(http.MethodPost, "/_fake/companies", `{"api_key": "job-key", "channels": [{"ref": "a", "channel": "chatapp", "provider_identifier": "5511940009999"}],
		"contacts": [{"channel": "a", "phone": "5511988887777"}]}`)
	require.Equal(t, http.StatusCreated, r.status, "%s", r.body)
	id := r.json(t)["id"].(string)
	assert.Equal(t, "job-key", r.json(t)["api_key"])
	add := `{"phone_number_id":"5511940009999","phone_number":"5511988886666","name":"x"}`
	require.Equal(t, http.StatusCreated, p.do(http.MethodPost, "/v1/chatapp/contacts", "Bearer job-key", add).status)
	p.api("/v1/channels", fake.DefaultAPIKey)
	defaultBefore := contactCount(t, p)

	r = p.admin(http.MethodPost, "/_fake/reset?company="+id, "")
	require.Equal(t, http.StatusOK, r.status, "%s", r.body)
	assert.Len(t, p.admin(http.MethodGet, "/_fake/state/contacts?company="+id, "").json(t)["items"], 1, "back to its creation data")
	assert.EqualValues(t, 0, p.admin(http.MethodGet, "/_fake/requests?company="+id, "").json(t)["count"])
	assert.EqualValues(t, 1, p.admin(http.MethodGet, "/_fake/requests?path=/channels", "").json(t)["count"], "the others' requests stay")
	assert.Equal(t, defaultBefore, contactCount(t, p), "the others' data stays")

	r = p.admin(http.MethodPost, "/_fake/reset?company=job-key", `{"empty": true}`)
	require.Equal(t, http.StatusOK, r.status, "%s", r.body)
	assert.Empty(t, p.admin(http.MethodGet, "/_fake/state/contacts?company="+id, "").json(t)["items"])

	r = p.admin(http.MethodPost, "/_fake/reset?company="+p.admin(http.MethodGet, "/_fake/", "").json(t)["company_id"].(string), "")
	require.Equal(t, http.StatusOK, r.status, "%s", r.body)
	assert.Equal(t, defaultBefore, contactCount(t, p), "the default company goes back to the start seed's first company")

	p.api("/v1/channels", "job-key")
	p.api("/v1/channels", fake.DefaultAPIKey)
	require.Equal(t, http.StatusOK, p.admin(http.MethodDelete, "/_fake/requests?company="+id, "").status)
	assert.EqualValues(t, 0, p.admin(http.MethodGet, "/_fake/requests?company="+id, "").json(t)["count"])
	assert.EqualValues(t, 1, p.admin(http.MethodGet, "/_fake/requests", "").json(t)["count"], "the default company's request stays")
}

func TestAdminCreateCompanyErrors(t *testing.T) {
	tests := []struct {
		name   string
		body   string
		status int
		code   string
	}{
		{"a key in use", `{"api_key": "fake-api-key"}`, http.StatusConflict, "key_in_use"},
		{"a bad seed", `{"contacts": [{"channel": "nope", "phone": "5511988887777"}]}`, http.StatusBadRequest, "invalid_seed"},
		{"two companies", `{"companies": [{}, {}]}`, http.StatusBadRequest, "invalid_request"},
		{"an unknown field", `{"colour": "red"}`, http.StatusBadRequest, "invalid_request"},
	}
	p := start(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assertAdminError(t, p.admin(http.MethodPost, "/_fake/companies", tt.body), tt.status, tt.code)
		})
	}
	r := p.admin(http.MethodPost, "/_fake/companies", "")
	require.Equal(t, http.StatusCreated, r.status, "%s", r.body)
	assert.True(t, strings.HasPrefix(r.json(t)["api_key"].(string), "ck_"), "a random key")
	assertAdminError(t, p.admin(http.MethodPost, "/_fake/companies", `{"id": "`+r.json(t)["id"].(string)+`"}`), http.StatusConflict, "key_in_use")
	assertAdminError(t, p.admin(http.MethodGet, "/_fake/requests?company=nope", ""), http.StatusNotFound, "not_found")
	assertAdminError(t, p.admin(http.MethodGet, "/_fake/seed?company=nope", ""), http.StatusNotFound, "not_found")
	assertAdminError(t, p.admin(http.MethodPost, "/_fake/reset?company=nope", ""), http.StatusNotFound, "not_found")
	assertAdminError(t, p.admin(http.MethodDelete, "/_fake/requests?company=nope", ""), http.StatusNotFound, "not_found")
}

// A company's seed (GET /_fake/seed?company=) creates the same company on
// another server.
func TestAdminCompanySeedCarriesOver(t *testing.T) {
	p := start(t)
	r := p.admin(http.MethodPost, "/_fake/companies", `{"channels": [{"ref": "a", "channel": "chatapp"}], "contacts": [{"channel": "a", "phone": "5511988887777", "tags": ["vip"]}]}`)
	require.Equal(t, http.StatusCreated, r.status, "%s", r.body)
	id := r.json(t)["id"].(string)
	seed := p.admin(http.MethodGet, "/_fake/seed?company="+id, "")
	other := start(t)
	r = other.admin(http.MethodPost, "/_fake/companies", string(seed.body))
	require.Equal(t, http.StatusCreated, r.status, "%s", r.body)
	assert.Equal(t, id, r.json(t)["id"])
	assert.JSONEq(t, string(seed.body), string(other.admin(http.MethodGet, "/_fake/seed?company="+id, "").body))
}
