package convo_test

import (
	"context"
	"net/http"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	convo "github.com/convoapi/convo-go"
	"github.com/convoapi/convo-go/fake"
	"github.com/convoapi/convo-go/internal/testkit"
)

func confirmation(t *testing.T, got any, want string) {
	t.Helper()
	assert.Equal(t, &convo.Confirmation{Message: want}, got)
}

func TestContactsWire(t *testing.T) {
	runWireCases(t, []wireCase{{
		name: "Create",
		call: func(ctx context.Context, c *convo.Client) (any, error) {
			return c.Contacts.Create(ctx, &convo.CreateContactParams{PhoneNumberID: "109876543210", PhoneNumber: "5511987654321", Name: "Ana Souza"})
		},
		method: "POST", path: "/v1/chatapp/contacts",
		body:   `{"phone_number_id":"109876543210","phone_number":"5511987654321","name":"Ana Souza"}`,
		status: 201, resp: ok(`{"message":"Contact created successfully"}`),
		check: func(t *testing.T, got any) { confirmation(t, got, "Contact created successfully") },
	}, {
		name: "Create sends the phone as given (no silent normalization)",
		call: func(ctx context.Context, c *convo.Client) (any, error) {
			return c.Contacts.Create(ctx, &convo.CreateContactParams{PhoneNumberID: "109876543210", PhoneNumber: "+55 (11) 98765-4321", Name: "Zoë <&>"})
		},
		method: "POST", path: "/v1/chatapp/contacts",
		body:   `{"phone_number_id":"109876543210","phone_number":"+55 (11) 98765-4321","name":"Zoë \u003c\u0026\u003e"}`,
		status: 201, resp: ok(`{"message":"Contact created successfully"}`),
	}, {
		name: "Lookup",
		call: func(ctx context.Context, c *convo.Client) (any, error) {
			return c.Contacts.Lookup(ctx, &convo.LookupContactParams{PhoneNumberID: "109876543210", PhoneNumber: "5511987654321"})
		},
		method: "GET", path: "/v1/chatapp/contacts/lookup",
		query: "phone_number=5511987654321&phone_number_id=109876543210",
		resp: ok(`{"id":"c0ffee00-1111-4222-8333-944455556666","phone_number":"5511987654321","name":"Ana Souza",
		          "email":null,"gender":null,"tag_names":"vip, lead ,,novo","created_via":"api"}`),
		check: func(t *testing.T, got any) {
			c := got.(*convo.Contact)
			assert.Equal(t, "c0ffee00-1111-4222-8333-944455556666", c.ID)
			assert.Equal(t, "5511987654321", c.PhoneNumber)
			assert.Equal(t, "Ana Souza", c.Name)
			assert.Nil(t, c.Email)
			assert.Nil(t, c.Gender)
			assert.Equal(t, "vip, lead ,,novo", c.TagNamesRaw)
			assert.Equal(t, []string{"vip", "lead", "novo"}, c.TagNames())
		},
	}, {
		name: "Lookup without phone_number_id, email and gender set",
		call: func(ctx context.Context, c *convo.Client) (any, error) {
			return c.Contacts.Lookup(ctx, &convo.LookupContactParams{PhoneNumber: "5511987654321"})
		},
		method: "GET", path: "/v1/chatapp/contacts/lookup",
		query: "phone_number=5511987654321",
		resp:  ok(`{"id":"p","phone_number":"5511987654321","name":"Ana","email":"ana@example.com","gender":"female","tag_names":""}`),
		check: func(t *testing.T, got any) {
			c := got.(*convo.Contact)
			require.NotNil(t, c.Email)
			assert.Equal(t, "ana@example.com", *c.Email)
			require.NotNil(t, c.Gender)
			assert.Equal(t, "female", *c.Gender)
			assert.Empty(t, c.TagNames())
		},
	}, {
		name: "UpdateCustomFields",
		call: func(ctx context.Context, c *convo.Client) (any, error) {
			return c.Contacts.UpdateCustomFields(ctx, &convo.UpdateCustomFieldsParams{
				PhoneNumberID: "109876543210", PhoneNumber: "5511987654321",
				CustomFields: map[string]string{"plan": "gold", "city": "São Paulo", "empty": ""},
			})
		},
		method: "PATCH", path: "/v1/chatapp/contacts/custom-fields",
		body:  `{"phone_number_id":"109876543210","phone_number":"5511987654321","custom_fields":{"city":"São Paulo","empty":"","plan":"gold"}}`,
		resp:  ok(`{"message":"Custom fields updated successfully"}`),
		check: func(t *testing.T, got any) { confirmation(t, got, "Custom fields updated successfully") },
	}, {
		name: "RemoveTags: DELETE with a JSON body, ids joined by commas",
		call: func(ctx context.Context, c *convo.Client) (any, error) {
			return c.Contacts.RemoveTags(ctx, &convo.RemoveTagsParams{PhoneNumberID: "109876543210", PhoneNumber: "5511987654321", TagIDs: []string{"a", "b"}})
		},
		method: "DELETE", path: "/v1/chatapp/contacts/tags",
		body:  `{"phone_number_id":"109876543210","phone_number":"5511987654321","tag_ids":"a,b"}`,
		resp:  ok(`{"message":"Tags removed successfully"}`),
		check: func(t *testing.T, got any) { confirmation(t, got, "Tags removed successfully") },
	}, {
		name: "RemoveTags: one tag, no phone_number_id",
		call: func(ctx context.Context, c *convo.Client) (any, error) {
			return c.Contacts.RemoveTags(ctx, &convo.RemoveTagsParams{PhoneNumber: "5511987654321", TagIDs: []string{"t-42"}})
		},
		method: "DELETE", path: "/v1/chatapp/contacts/tags",
		body: `{"phone_number":"5511987654321","tag_ids":"t-42"}`,
		resp: ok(`{"message":"Tags removed successfully"}`),
	}})
}

func TestContactsErrors(t *testing.T) {
	missing := func(name string) apiErr {
		return apiErr{400, convo.CodeMissingParam, name + " is required", "", convo.ErrMissingParam}
	}
	notFound := apiErr{404, convo.CodeContactNotFound, "Contact not found", "", convo.ErrContactNotFound}

	t.Run("Create", func(t *testing.T) {
		runErrorCases(t, "POST", "/chatapp/contacts", func(ctx context.Context, c *convo.Client) error {
			_, err := c.Contacts.Create(ctx, &convo.CreateContactParams{PhoneNumberID: "109876543210", PhoneNumber: "5511987654321"})
			return err
		}, []apiErr{
			missing("name"),
			{404, convo.CodeChannelNotFound, "Channel not found", "", convo.ErrChannelNotFound},
			{409, convo.CodeContactExists, "A contact with that phone number already exists", "", convo.ErrContactExists},
			errUnauthorized,
			errRateLimited,
		})
	})
	t.Run("Lookup", func(t *testing.T) {
		runErrorCases(t, "GET", "/chatapp/contacts/lookup", func(ctx context.Context, c *convo.Client) error {
			_, err := c.Contacts.Lookup(ctx, &convo.LookupContactParams{PhoneNumberID: "109876543210"})
			return err
		}, []apiErr{missing("phone_number"), notFound, errUnauthorized, errRateLimited})
	})
	t.Run("UpdateCustomFields", func(t *testing.T) {
		runErrorCases(t, "PATCH", "/chatapp/contacts/custom-fields", func(ctx context.Context, c *convo.Client) error {
			_, err := c.Contacts.UpdateCustomFields(ctx, &convo.UpdateCustomFieldsParams{PhoneNumber: "5511987654321"})
			return err
		}, []apiErr{missing("custom_fields"), notFound, errUnauthorized, errRateLimited})
	})
	t.Run("RemoveTags", func(t *testing.T) {
		runErrorCases(t, "DELETE", "/chatapp/contacts/tags", func(ctx context.Context, c *convo.Client) error {
			_, err := c.Contacts.RemoveTags(ctx, &convo.RemoveTagsParams{PhoneNumber: "5511987654321"})
			return err
		}, []apiErr{missing("tag_ids"), notFound, errUnauthorized, errRateLimited})
	})
}

func TestContactsNilParams(t *testing.T) {
	c, m := newMock(t, jsonResp(200, ok(`{}`)))
	ctx := context.Background()
	_, err := c.Contacts.Create(ctx, nil)
	assert.Error(t, err)
	_, err = c.Contacts.Lookup(ctx, nil)
	assert.Error(t, err)
	_, err = c.Contacts.UpdateCustomFields(ctx, nil)
	assert.Error(t, err)
	_, err = c.Contacts.RemoveTags(ctx, nil)
	assert.Error(t, err)
	assert.Empty(t, m.requests())
}

func TestNormalizePhone(t *testing.T) {
	for in, want := range map[string]string{
		"+55 (11) 98765-4321": "5511987654321",
		"5511987654321":       "5511987654321",
		"1234 5678":           "12345678",
	} {
		got, err := convo.NormalizePhone(in)
		require.NoError(t, err, in)
		assert.Equal(t, want, got, in)
	}
	for _, in := range []string{"", "1234567", "1234567890123456", "abc", "+55 (11) abc 88888-0004", "5511988880004x"} {
		_, err := convo.NormalizePhone(in)
		assert.ErrorIs(t, err, convo.ErrInvalidPhone, in)
	}
}

// A 429 is refused before the service acts, so even a POST is sent again, with
// the same body, and the contact is created once.
func TestContactsCreateRetriedOn429(t *testing.T) {
	calls := 0
	c, m := newMock(t, func(r *http.Request) (*http.Response, error) {
		calls++
		if calls == 1 {
			resp, err := jsonResp(429, errBody(errRateLimited, "POST", "/chatapp/contacts", "ERR-RATE0001-0001"))(r)
			resp.Header.Set("Retry-After", "0")
			return resp, err
		}
		return jsonResp(201, ok(`{"message":"Contact created successfully"}`))(r)
	})
	got, err := c.Contacts.Create(context.Background(), &convo.CreateContactParams{PhoneNumberID: "109876543210", PhoneNumber: "5511987654321", Name: "Ana"})
	require.NoError(t, err)
	assert.Equal(t, "Contact created successfully", got.Message)
	reqs := m.requests()
	require.Len(t, reqs, 2)
	want := `{"phone_number_id":"109876543210","phone_number":"5511987654321","name":"Ana"}`
	assert.Equal(t, want, reqs[0].Body)
	assert.Equal(t, want, reqs[1].Body, "the body is sent again whole")
}

func TestEnsureUnderFiftyConcurrentCallers(t *testing.T) {
	s := fake.New(t, fake.WithRateLimit(1e6, 1e6), fake.WithHandlerMiddleware(testkit.Middleware(t)))
	co := s.Company()
	co.AddChannel(fake.ChannelAccount{Channel: convo.ChannelChatapp, DisplayName: "Sales", ProviderIdentifier: "5511900000000"})
	c := s.Client()
	params := &convo.CreateContactParams{PhoneNumberID: "5511900000000", PhoneNumber: "5511987650000", Name: "Bia"}

	var (
		wg      sync.WaitGroup
		mu      sync.Mutex
		ids     = map[string]int{}
		created int
		errs    []error
	)
	for range 50 {
		wg.Go(func() {
			ct, isNew, err := c.Contacts.Ensure(context.Background(), params)
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				errs = append(errs, err)
				return
			}
			ids[ct.ID]++
			if isNew {
				created++
			}
		})
	}
	wg.Wait()
	require.Empty(t, errs)
	assert.Len(t, ids, 1, "one contact for every caller")
	assert.Equal(t, 1, created, "exactly one caller created it")

	again, isNew, err := c.Contacts.Ensure(context.Background(), params)
	require.NoError(t, err)
	assert.False(t, isNew)
	assert.Contains(t, ids, again.ID)
	assert.Equal(t, "5511987650000", again.PhoneNumber)
}

func TestEnsureRefusesNilAndPassesOtherErrors(t *testing.T) {
	c, m := newMock(t, jsonResp(404, errBody(apiErr{status: 404, code: convo.CodeChannelNotFound, message: "Channel not found"}, "POST", "/chatapp/contacts", "ERR-1")))
	_, _, err := c.Contacts.Ensure(context.Background(), nil)
	require.Error(t, err)
	_, created, err := c.Contacts.Ensure(context.Background(), &convo.CreateContactParams{PhoneNumberID: "x", PhoneNumber: "5511987650000", Name: "A"})
	assert.ErrorIs(t, err, convo.ErrChannelNotFound)
	assert.False(t, created)
	assert.Len(t, m.requests(), 1, "no lookup after a failure other than CONTACT_EXISTS")
}
