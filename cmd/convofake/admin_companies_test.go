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
			reqs := p.admin(http.MethodGet, "/_fake/requests?company="+who, "").JSON(t)
			assert.EqualValues(t, 100, reqs["count"], "its own 100 requests, none of the other's")
			for _, it := range reqs["items"].([]any) {
				assert.Equal(t, j.id, it.(map[string]any)["company_id"])
			}
		}
		contacts := p.admin(http.MethodGet, "/_fake/state/contacts?company="+j.key, "").JSON(t)["items"].([]any)
		assert.Len(t, contacts, 50)
		seed := p.admin(http.MethodGet, "/_fake/seed?company="+j.id, "")
		assert.NotContains(t, string(seed.Body), other.phones[0])
		assert.NotContains(t, string(seed.Body), other.key)
		// Its key does not reach the other's contacts.
		r := p.do(http.MethodGet, "/v1/chatapp/contacts/lookup?phone_number="+other.phones[0], "Bearer "+j.key, "")
		assert.Equal(t, http.StatusNotFound, r.Status, "%s", r.Body)
	}
	companies := p.admin(http.MethodGet, "/_fake/companies", "").JSON(t)["items"].([]any)
	assert.Len(t, companies, 3, "the default company and the two jobs'")
}

// A company is reset, its journal cleared and its seed read alone.
func TestAdminCompanyResetAndJournal(t *testing.T) {
	p := start(t)
	r := p.admin(http.MethodPost, "/_fake/companies", `{"api_key": "job-key", "channels": [{"ref": "a", "channel": "chatapp", "provider_identifier": "5511940009999"}],
		"contacts": [{"channel": "a", "phone": "5511988887777"}]}`)
	require.Equal(t, http.StatusCreated, r.Status, "%s", r.Body)
	id := r.JSON(t)["id"].(string)
	assert.Equal(t, "job-key", r.JSON(t)["api_key"])
	add := `{"phone_number_id":"5511940009999","phone_number":"5511988886666","name":"x"}`
	require.Equal(t, http.StatusCreated, p.do(http.MethodPost, "/v1/chatapp/contacts", "Bearer job-key", add).Status)
	p.api("/v1/channels", fake.DefaultAPIKey)
	defaultBefore := contactCount(t, p)

	r = p.admin(http.MethodPost, "/_fake/reset?company="+id, "")
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	assert.Len(t, p.admin(http.MethodGet, "/_fake/state/contacts?company="+id, "").JSON(t)["items"], 1, "back to its creation data")
	assert.EqualValues(t, 0, p.admin(http.MethodGet, "/_fake/requests?company="+id, "").JSON(t)["count"])
	assert.EqualValues(t, 1, p.admin(http.MethodGet, "/_fake/requests?path=/channels", "").JSON(t)["count"], "the others' requests stay")
	assert.Equal(t, defaultBefore, contactCount(t, p), "the others' data stays")

	r = p.admin(http.MethodPost, "/_fake/reset?company=job-key", `{"empty": true}`)
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	assert.Empty(t, p.admin(http.MethodGet, "/_fake/state/contacts?company="+id, "").JSON(t)["items"])

	r = p.admin(http.MethodPost, "/_fake/reset?company="+p.admin(http.MethodGet, "/_fake/", "").JSON(t)["company_id"].(string), "")
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	assert.Equal(t, defaultBefore, contactCount(t, p), "the default company goes back to the start seed's first company")

	p.api("/v1/channels", "job-key")
	p.api("/v1/channels", fake.DefaultAPIKey)
	require.Equal(t, http.StatusOK, p.admin(http.MethodDelete, "/_fake/requests?company="+id, "").Status)
	assert.EqualValues(t, 0, p.admin(http.MethodGet, "/_fake/requests?company="+id, "").JSON(t)["count"])
	assert.EqualValues(t, 1, p.admin(http.MethodGet, "/_fake/requests", "").JSON(t)["count"], "the default company's request stays")
}

func TestAdminCreateCompanyErrors(t *testing.T) {
	tests := []struct {
		name   string
		body   string
		status int
		code   string
	}{
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
	require.Equal(t, http.StatusCreated, r.Status, "%s", r.Body)
	assert.True(t, strings.HasPrefix(r.JSON(t)["api_key"].(string), "ck_"), "a random key")
	assert.Equal(t, []any{}, r.JSON(t)["replaced"])
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
	require.Equal(t, http.StatusCreated, r.Status, "%s", r.Body)
	id := r.JSON(t)["id"].(string)
	seed := p.admin(http.MethodGet, "/_fake/seed?company="+id, "")
	other := start(t)
	r = other.admin(http.MethodPost, "/_fake/companies", string(seed.Body))
	require.Equal(t, http.StatusCreated, r.Status, "%s", r.Body)
	assert.Equal(t, id, r.JSON(t)["id"])
	assert.JSONEq(t, string(seed.Body), string(other.admin(http.MethodGet, "/_fake/seed?company="+id, "").Body))
}

// A company's api_key or id that another company has is replaced by a new
// one, which the 201 returns and names as replaced; the answer names
// neither the other company nor its key.
func TestAdminCreateCompanyReplacesTakenKeyAndID(t *testing.T) {
	p := start(t)
	first := p.admin(http.MethodPost, "/_fake/companies", `{"api_key": "job-key"}`)
	require.Equal(t, http.StatusCreated, first.Status, "%s", first.Body)
	firstID := first.JSON(t)["id"].(string)
	tests := []struct {
		name, body string
		replaced   []any
	}{
		{"the default key", `{"api_key": "fake-api-key"}`, []any{"api_key"}},
		{"another job's key and id", `{"api_key": "job-key", "id": "` + firstID + `"}`, []any{"api_key", "id"}},
		{"an id", `{"id": "` + firstID + `"}`, []any{"id"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := p.admin(http.MethodPost, "/_fake/companies", tt.body)
			require.Equal(t, http.StatusCreated, r.Status, "%s", r.Body)
			got := r.JSON(t)
			assert.ElementsMatch(t, tt.replaced, got["replaced"])
			assert.Contains(t, got["notice"], "got a new one")
			assert.NotEqual(t, firstID, got["id"])
			assert.NotContains(t, string(r.Body), "fake-api-key")
			assert.NotContains(t, string(r.Body), `"job-key"`)
			assert.Equal(t, http.StatusOK, p.api("/v1/channels", got["api_key"].(string)).Status, "the new key works")
		})
	}
}

// The fixture of TestAdminTenantsFromOneFixture: explicit ids everywhere,
// a free-form message id among them.
const idFixture = `{"channels": [{"id": "a0000000-0000-4000-8000-0000000000aa", "channel": "chatapp", "provider_identifier": "5511940000077"}],
 "contacts": [{"id": "c0000000-0000-4000-8000-0000000000cc", "channel": "a0000000-0000-4000-8000-0000000000aa", "phone": "5511988880000", "name": "Fixture"}],
 "conversations": [{"id": "d0000000-0000-4000-8000-0000000000dd", "contact": "c0000000-0000-4000-8000-0000000000cc",
   "messages": [{"id": "fixture-msg-1", "text": "hello", "ago": "1h"}]}]}`

// Two jobs load one fixture file with explicit ids into companies of their
// own, then each makes 200 reads and 50 writes in parallel: each sees only
// its own, none of the other's.
func TestAdminTenantsFromOneFixture(t *testing.T) {
	p := start(t, "--rate-limit", "0")
	keys := make([]string, 2)
	ids := make([]string, 2)
	for i := range keys {
		r := p.admin(http.MethodPost, "/_fake/companies", idFixture)
		require.Equal(t, http.StatusCreated, r.Status, "%s", r.Body)
		keys[i], ids[i] = r.JSON(t)["api_key"].(string), r.JSON(t)["id"].(string)
	}
	type tally struct{ reads, writes, own, foreign int }
	tallies := make([]tally, 2)
	errs := make([]error, 2)
	var wg sync.WaitGroup
	for i := range keys {
		wg.Go(func() {
			j := &tenantJob{p: p}
			tl := &tallies[i]
			for n := range 50 {
				phone := fmt.Sprintf("55%d19%08d", i+1, n)
				status, body, err := j.call(http.MethodPost, "/v1/chatapp/contacts", "Bearer "+keys[i],
					`{"phone_number_id":"5511940000077","phone_number":"`+phone+`","name":"job `+fmt.Sprint(i)+`"}`)
				if err != nil || status != http.StatusCreated {
					errs[i] = fmt.Errorf("write %d: %d %s %v", n, status, body, err)
					return
				}
				tl.writes++
				for _, path := range []string{"/v1/conversations?status=all", "/v1/conversations/d0000000-0000-4000-8000-0000000000dd/messages",
					"/v1/chatapp/contacts/lookup?phone_number=" + phone, "/v1/chatapp/contacts/lookup?phone_number=" + fmt.Sprintf("55%d19%08d", 2-i, n)} {
					status, body, err := j.call(http.MethodGet, path, "Bearer "+keys[i], "")
					if err != nil {
						errs[i] = err
						return
					}
					tl.reads++
					switch {
					case strings.Contains(string(body), fmt.Sprintf("job %d", 1-i)):
						tl.foreign++
					case status == http.StatusOK:
						tl.own++
					}
				}
			}
		})
	}
	wg.Wait()
	for i := range keys {
		require.NoError(t, errs[i])
		t.Logf("job %d: %d reads, %d writes; %d answers of its own, %d holding the other job's data", i, tallies[i].reads, tallies[i].writes, tallies[i].own, tallies[i].foreign)
		assert.Equal(t, tally{reads: 200, writes: 50, own: 150, foreign: 0}, tallies[i],
			"job %d: 150 reads of its own answer 200, the 50 lookups of the other's phones 404", i)
		contacts := p.admin(http.MethodGet, "/_fake/state/contacts?company="+ids[i], "").JSON(t)["items"].([]any)
		assert.Len(t, contacts, 51, "the fixture's contact and its own 50")
		for _, c := range contacts {
			assert.NotEqual(t, fmt.Sprintf("job %d", 1-i), c.(map[string]any)["name"])
		}
		cv := p.admin(http.MethodGet, "/_fake/state/conversations/d0000000-0000-4000-8000-0000000000dd?company="+ids[i], "")
		require.Equal(t, http.StatusOK, cv.Status, "%s", cv.Body)
		assert.Equal(t, ids[i], cv.JSON(t)["company_id"])
		assert.EqualValues(t, 250, p.admin(http.MethodGet, "/_fake/requests?company="+ids[i], "").JSON(t)["count"])
	}
}
