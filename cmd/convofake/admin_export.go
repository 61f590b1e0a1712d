package main

import (
	"net/http"
	"slices"
	"time"

	"github.com/convoapi/convo-go"
	"github.com/convoapi/convo-go/fake"
)

// exportSeed: GET /_fake/state/seed: the state as a seed document
// (fake/SEED.md) that --seed and POST /_fake/seed load back: every
// company with its API key, channel accounts, contacts and conversations
// with their messages, and the frozen clock's now. What a seed cannot
// carry is lost: media contents (a file keeps its size, as filler), the
// display names of webchat widgets, canceled sequences.
func (a *admin) exportSeed(w http.ResponseWriter, _ *http.Request) error {
	seed := fake.Seed{Companies: []fake.CompanySeed{}}
	if c := a.srv.Clock(); c.Manual() {
		now := c.Now().UTC()
		seed.Now = &now
	}
	for _, co := range a.srv.Companies() {
		cs, err := a.exportCompany(co)
		if err != nil {
			return err
		}
		seed.Companies = append(seed.Companies, cs)
	}
	writeJSON(w, http.StatusOK, seed)
	return nil
}

func (a *admin) exportCompany(co *fake.Company) (fake.CompanySeed, error) {
	cs := fake.CompanySeed{APIKey: co.APIKey()}
	var page struct {
		Items []convo.ChannelAccount `json:"items"`
	}
	if err := a.readAPI(co, "/channels", &page); err != nil {
		return cs, err
	}
	known := map[string]bool{}
	for _, ch := range page.Items {
		known[ch.ID] = true
		cs.Channels = append(cs.Channels, fake.ChannelAccount{ID: ch.ID, Channel: ch.Channel, DisplayName: ch.DisplayName, ProviderIdentifier: ch.ProviderIdentifier})
	}
	for _, ct := range co.Contacts() {
		if !known[ct.ChannelAccountID] { // GET /channels does not list webchat widgets
			known[ct.ChannelAccountID] = true
			cs.Channels = append(cs.Channels, fake.ChannelAccount{ID: ct.ChannelAccountID, Channel: convo.ChannelWebchat})
		}
		cs.Contacts = append(cs.Contacts, exportContact(ct))
	}
	ids, err := a.conversationIDs(co)
	if err != nil {
		return cs, err
	}
	slices.Reverse(ids) // oldest activity first, as a person writes a seed
	for _, id := range ids {
		cv, err := a.exportConversation(co, id)
		if err != nil {
			return cs, err
		}
		cs.Conversations = append(cs.Conversations, cv)
	}
	return cs, nil
}

// exportContact keeps what a seed sets of a contact.
func exportContact(ct fake.Contact) fake.Contact {
	if ct.SequenceStatus != fake.SequenceScheduled {
		ct.SequenceName = ""
	}
	ct.CompanyID, ct.TagIDs, ct.SequenceStatus = "", nil, ""
	ct.LastInteractionAt = time.Time{}
	return ct
}

func (a *admin) exportConversation(co *fake.Company, id string) (fake.Conversation, error) {
	cv, _ := a.srv.Conversation(id)
	out := fake.Conversation{ID: cv.ID, ContactID: cv.ContactID, Status: cv.Status, AssignedTo: cv.AssignedTo, CreatedAt: cv.CreatedAt}
	ids, err := a.messageIDs(co, id)
	if err != nil {
		return out, err
	}
	for _, mid := range ids {
		if m, ok := a.srv.Message(mid); ok {
			m.ConversationID = ""
			if m.Media != nil {
				m.Media.MediaID = "" // set by the server
			}
			out.Messages = append(out.Messages, m)
		}
	}
	return out, nil
}
