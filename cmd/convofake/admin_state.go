package main

import (
	"net/http"
	"time"

	"github.com/convoapi/convo-go/fake"
)

func optString(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func optTime(t time.Time) *string {
	if t.IsZero() {
		return nil
	}
	return optString(formatTime(t))
}

type contactJSON struct {
	ID                string            `json:"id"`
	CompanyID         string            `json:"company_id"`
	ChannelAccountID  string            `json:"channel_account_id"`
	Channel           string            `json:"channel"`
	Phone             *string           `json:"phone"`
	ChannelIdentifier string            `json:"channel_identifier"`
	Name              string            `json:"name"`
	Email             *string           `json:"email"`
	Gender            *string           `json:"gender"`
	Tags              []string          `json:"tags"`
	TagIDs            []string          `json:"tag_ids"`
	CustomFields      map[string]string `json:"custom_fields"`
	Sequence          *string           `json:"sequence"`
	SequenceName      *string           `json:"sequence_name"`
	CreatedAt         string            `json:"created_at"`
	LastInteractionAt *string           `json:"last_interaction_at"`
}

func contactOut(c fake.ContactState) contactJSON {
	out := contactJSON{
		ID: c.ID, CompanyID: c.CompanyID, ChannelAccountID: c.AccountID, Channel: string(c.Channel),
		Phone: optString(c.Phone), ChannelIdentifier: c.ChannelIdentifier, Name: c.Name,
		Email: optString(c.Email), Gender: optString(c.Gender),
		Tags: c.Tags, TagIDs: c.TagIDs, CustomFields: c.CustomFields,
		Sequence: optString(c.Sequence), SequenceName: optString(c.SequenceName),
		CreatedAt: formatTime(c.CreatedAt), LastInteractionAt: optTime(c.LastInteractionAt),
	}
	if out.Tags == nil {
		out.Tags = []string{}
	}
	if out.TagIDs == nil {
		out.TagIDs = []string{}
	}
	if out.CustomFields == nil {
		out.CustomFields = map[string]string{}
	}
	return out
}

type itemsJSON[T any] struct {
	Items []T `json:"items"`
}

// companyJSON is a company, as GET /_fake/companies lists it.
type companyJSON struct {
	ID       string `json:"id"`
	Default  bool   `json:"default"`
	Contacts int    `json:"contacts"`
}

// companies: GET /_fake/companies: every company (tenant), the default one
// (the first of the seed) first, then in seed order. The ids are the values
// of ?company= on the state endpoints. API keys are not shown.
func (a *admin) companies(w http.ResponseWriter, _ *http.Request) error {
	out := itemsJSON[companyJSON]{Items: []companyJSON{}}
	for i, co := range a.srv.Companies() {
		out.Items = append(out.Items, companyJSON{ID: co.ID(), Default: i == 0, Contacts: len(co.Contacts())})
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

// company resolves ?company=<company id> (GET /_fake/companies lists them);
// absent: the default company.
func (a *admin) company(r *http.Request) (*fake.Company, error) {
	id := r.URL.Query().Get("company")
	if !r.URL.Query().Has("company") {
		return a.srv.Company(), nil
	}
	for _, co := range a.srv.Companies() {
		if co.ID() == id {
			return co, nil
		}
	}
	return nil, errorf(http.StatusNotFound, "not_found", "no company with id %q; GET /_fake/companies lists them", id)
}

// contacts: GET /_fake/state/contacts[?company=&phone=&account=]: the
// contacts of the default company, or of ?company=<id>; with phone, the one
// with that phone (normalized) on the channel account account, or (no
// account) the one with the most recent interaction on any account: 0 or 1
// items.
func (a *admin) contacts(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	co, err := a.company(r)
	if err != nil {
		return err
	}
	out := itemsJSON[contactJSON]{Items: []contactJSON{}}
	switch {
	case q.Has("phone"):
		if c, ok := co.ContactByPhone(q.Get("account"), q.Get("phone")); ok {
			out.Items = append(out.Items, contactOut(c))
		}
	case q.Has("account"):
		return badRequest("account needs phone")
	default:
		for _, c := range co.Contacts() {
			out.Items = append(out.Items, contactOut(c))
		}
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

func notFound(kind, id string) error {
	return errorf(http.StatusNotFound, "not_found", "no %s with id %q", kind, id)
}

func (a *admin) contact(w http.ResponseWriter, r *http.Request) error {
	c, ok := a.srv.Contact(r.PathValue("id"))
	if !ok {
		return notFound("contact", r.PathValue("id"))
	}
	writeJSON(w, http.StatusOK, contactOut(c))
	return nil
}

type conversationJSON struct {
	ID                string  `json:"id"`
	CompanyID         string  `json:"company_id"`
	ContactID         string  `json:"contact_id"`
	ChannelAccountID  string  `json:"channel_account_id"`
	Channel           string  `json:"channel"`
	ChannelIdentifier string  `json:"channel_identifier"`
	Status            string  `json:"status"`
	AssignedTo        *string `json:"assigned_to"`
	UnreadCount       int     `json:"unread_count"`
	CreatedAt         string  `json:"created_at"`
	LastInboundAt     *string `json:"last_inbound_at"`
	LastMessageAt     *string `json:"last_message_at"`
	MessageCount      int     `json:"message_count"`
}

func (a *admin) conversation(w http.ResponseWriter, r *http.Request) error {
	c, ok := a.srv.Conversation(r.PathValue("id"))
	if !ok {
		return notFound("conversation", r.PathValue("id"))
	}
	writeJSON(w, http.StatusOK, conversationJSON{
		ID: c.ID, CompanyID: c.CompanyID, ContactID: c.ContactID, ChannelAccountID: c.AccountID,
		Channel: string(c.Channel), ChannelIdentifier: c.ChannelIdentifier, Status: string(c.Status),
		AssignedTo: optString(c.AssignedTo), UnreadCount: c.UnreadCount, CreatedAt: formatTime(c.CreatedAt),
		LastInboundAt: optTime(c.LastInboundAt), LastMessageAt: optTime(c.LastMessageAt), MessageCount: c.MessageCount,
	})
	return nil
}

type messageJSON struct {
	ID             string  `json:"id"`
	ConversationID string  `json:"conversation_id"`
	Direction      string  `json:"direction"`
	Sender         string  `json:"sender"`
	Type           string  `json:"type"`
	At             string  `json:"at"`
	MediaStatus    *string `json:"media_status"`
	MediaID        *string `json:"media_id"`
	Reactions      int     `json:"reactions"`
}

func (a *admin) message(w http.ResponseWriter, r *http.Request) error {
	m, ok := a.srv.Message(r.PathValue("id"))
	if !ok {
		return notFound("message", r.PathValue("id"))
	}
	writeJSON(w, http.StatusOK, messageJSON{
		ID: m.ID, ConversationID: m.ConversationID, Direction: string(m.Direction), Sender: string(m.Sender),
		Type: string(m.Type), At: formatTime(m.At), MediaStatus: optString(string(m.MediaStatus)), MediaID: optString(m.MediaID),
		Reactions: m.Reactions,
	})
	return nil
}
