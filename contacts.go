package convo

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/convoapi/convo-go/internal/phone"
)

// Contact is a contact found by Contacts.Lookup (OpenAPI lookupContact).
type Contact struct {
	// ID identifies the contact (a UUID).
	ID string `json:"id"`
	// PhoneNumber is the country code plus digits only.
	PhoneNumber string `json:"phone_number"`
	// Name is the contact's name.
	Name string `json:"name"`
	// Email is nil when the service sent null.
	Email *string `json:"email"`
	// Gender is nil when the service sent null.
	Gender *string `json:"gender"`
	// TagNamesRaw is tag_names as sent: names separated by commas. TagNames
	// splits it.
	TagNamesRaw string `json:"tag_names"`
}

// TagNames splits tag_names into names, trimmed, without empty entries.
func (c *Contact) TagNames() []string {
	var out []string
	for _, t := range strings.Split(c.TagNamesRaw, ",") {
		if t = strings.TrimSpace(t); t != "" {
			out = append(out, t)
		}
	}
	return out
}

// Confirmation is the data.message text the contact calls answer with.
type Confirmation struct {
	// Message is the service's confirmation text, for humans; do not parse it.
	Message string `json:"message"`
}

// ErrInvalidPhone reports a number that has fewer than 8 or more than 15
// digits once normalized, or that holds something other than digits and
// the separators (a letter, an underscore).
var ErrInvalidPhone = phone.ErrInvalid

// NormalizePhone applies the service's phone rule (OpenAPI lookupContact): keep the
// digits, which must number 8 to 15; spaces and + - ( ) . may separate
// them, anything else is refused. "+55 (11) 98765-4321" → "5511987654321";
// "+55 (11) abc 88888-0004" is [ErrInvalidPhone].
// The SDK never normalizes behind your back; call it where you want it.
func NormalizePhone(s string) (string, error) {
	n, err := phone.Normalize(s)
	if err != nil {
		return "", fmt.Errorf("convo: %w", err)
	}
	return n, nil
}

// CreateContactParams is the body of a contact creation (OpenAPI createContact).
type CreateContactParams struct {
	// PhoneNumberID is the provider_identifier of one of the company's
	// chatapp accounts.
	PhoneNumberID string `json:"phone_number_id,omitempty"`
	// PhoneNumber is country code plus digits; the server normalizes it.
	PhoneNumber string `json:"phone_number,omitempty"`
	// Name is required.
	Name string `json:"name,omitempty"`
}

// LookupContactParams finds a contact (OpenAPI lookupContact). Without PhoneNumberID the
// search spans the company and takes the contact with the most recent
// interaction.
type LookupContactParams struct {
	// PhoneNumberID is the provider_identifier of a chatapp account;
	// optional: without it the search spans the company and takes the contact
	// with the most recent interaction.
	PhoneNumberID string `url:"phone_number_id,omitempty"`
	// PhoneNumber is required: country code plus digits (see NormalizePhone).
	PhoneNumber string `url:"phone_number,omitempty"`
}

// UpdateCustomFieldsParams writes custom fields (OpenAPI updateContactCustomFields).
type UpdateCustomFieldsParams struct {
	// PhoneNumberID is the provider_identifier of a chatapp account;
	// optional: without it the search spans the company and takes the contact
	// with the most recent interaction.
	PhoneNumberID string `json:"phone_number_id,omitempty"`
	// PhoneNumber names the contact: country code plus digits.
	PhoneNumber string `json:"phone_number,omitempty"`
	// CustomFields are merged into the contact's: the fields sent are set,
	// the fields not sent stay as they are. There is no way to delete one.
	CustomFields map[string]string `json:"custom_fields,omitempty"`
}

// RemoveTagsParams removes tags from a contact (OpenAPI removeContactTags).
type RemoveTagsParams struct {
	// PhoneNumberID is the provider_identifier of a chatapp account;
	// optional: without it the search spans the company and takes the contact
	// with the most recent interaction.
	PhoneNumberID string
	// PhoneNumber names the contact: country code plus digits.
	PhoneNumber string
	// TagIDs are sent as one comma-separated string.
	TagIDs []string
}

// ContactsService manages contacts on the chat channel (OpenAPI createContact,
// lookupContact, updateContactCustomFields, removeContactTags).
type ContactsService struct{ c *Client }

var errNilParams = errors.New("nil params")

// Create creates a contact and its channel identity in one step: both or
// neither (OpenAPI createContact). A phone already known on that number is
// ErrContactExists; an unknown PhoneNumberID is ErrChannelNotFound; a missing
// field is ErrMissingParam. A POST is never retried except on 429, so a
// contact is never created twice by the SDK.
func (s *ContactsService) Create(ctx context.Context, params *CreateContactParams, opts ...Option) (*Confirmation, error) {
	if params == nil {
		return nil, fmt.Errorf("convo: Contacts.Create: %w", errNilParams)
	}
	out := new(Confirmation)
	if err := s.c.call(ctx, "POST", "/chatapp/contacts", nil, params, out, opts); err != nil {
		return nil, err
	}
	return out, nil
}

// Lookup finds one contact by phone number (OpenAPI lookupContact). Not found is
// ErrContactNotFound.
func (s *ContactsService) Lookup(ctx context.Context, params *LookupContactParams, opts ...Option) (*Contact, error) {
	if params == nil {
		return nil, fmt.Errorf("convo: Contacts.Lookup: %w", errNilParams)
	}
	out := new(Contact)
	if err := s.c.call(ctx, "GET", "/chatapp/contacts/lookup", params, nil, out, opts); err != nil {
		return nil, err
	}
	return out, nil
}

// UpdateCustomFields merges custom-field values into a contact (OpenAPI updateContactCustomFields).
func (s *ContactsService) UpdateCustomFields(ctx context.Context, params *UpdateCustomFieldsParams, opts ...Option) (*Confirmation, error) {
	if params == nil {
		return nil, fmt.Errorf("convo: Contacts.UpdateCustomFields: %w", errNilParams)
	}
	out := new(Confirmation)
	if err := s.c.call(ctx, "PATCH", "/chatapp/contacts/custom-fields", nil, params, out, opts); err != nil {
		return nil, err
	}
	return out, nil
}

// removeTagsBody is the wire form of RemoveTagsParams.
type removeTagsBody struct {
	PhoneNumberID string `json:"phone_number_id,omitempty"`
	PhoneNumber   string `json:"phone_number,omitempty"`
	TagIDs        string `json:"tag_ids,omitempty"`
}

// RemoveTags removes tags from a contact (OpenAPI removeContactTags). The DELETE carries a
// JSON body, as the service expects.
func (s *ContactsService) RemoveTags(ctx context.Context, params *RemoveTagsParams, opts ...Option) (*Confirmation, error) {
	if params == nil {
		return nil, fmt.Errorf("convo: Contacts.RemoveTags: %w", errNilParams)
	}
	body := removeTagsBody{
		PhoneNumberID: params.PhoneNumberID,
		PhoneNumber:   params.PhoneNumber,
		TagIDs:        strings.Join(params.TagIDs, ","),
	}
	out := new(Confirmation)
	if err := s.c.call(ctx, "DELETE", "/chatapp/contacts/tags", nil, body, out, opts); err != nil {
		return nil, err
	}
	return out, nil
}

// Ensure returns the contact with params.PhoneNumber on the account
// params.PhoneNumberID, creating it (with params.Name) when it does not exist
// yet; created reports whether this call created it. When the contact already
// exists (CONTACT_EXISTS) it is looked up and returned as it stands — its name
// is not changed. Two callers racing for one phone number both get the same
// contact, and only one of them sees created = true, because the service
// creates a phone at most once per account and the loser looks it up.
//
// Cost: two calls either way — a create then a lookup, since the service's
// create answers with a confirmation text and no contact. opts apply to both.
// If the lookup fails after a creation, the error is returned with created
// = true, so that the caller knows the contact now exists.
func (s *ContactsService) Ensure(ctx context.Context, params *CreateContactParams, opts ...Option) (contact *Contact, created bool, err error) {
	if params == nil {
		return nil, false, fmt.Errorf("convo: Contacts.Ensure: %w", errNilParams)
	}
	_, err = s.Create(ctx, params, opts...)
	switch {
	case err == nil:
		created = true
	case !errors.Is(err, ErrContactExists):
		return nil, false, err
	}
	contact, err = s.Lookup(ctx, &LookupContactParams{PhoneNumberID: params.PhoneNumberID, PhoneNumber: params.PhoneNumber}, opts...)
	if err != nil {
		return nil, created, fmt.Errorf("convo: Contacts.Ensure: looking up the contact: %w", err)
	}
	return contact, created, nil
}
