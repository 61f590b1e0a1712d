package fake

import (
	"encoding/json"
	"errors"
	"net/http"
	"strings"

	convo "github.com/convoapi/convo-go"
	"github.com/convoapi/convo-go/internal/phone"
)

// Confirmation texts of the contact endpoints (data.message).
const (
	MsgContactCreated      = "Contact created successfully."
	MsgCustomFieldsUpdated = "Custom fields updated successfully."
	MsgTagsRemoved         = "Tags removed successfully."
)

func normalizeParam(name, v string) (string, *apiError) {
	norm, err := phone.Normalize(v)
	if err != nil {
		return "", phoneParamError(name, err)
	}
	return norm, nil
}

// chatappAccount finds the company's chatapp account whose provider
// identifier is phoneNumberID.
func (co *company) chatappAccount(phoneNumberID string) *account {
	for _, a := range co.accounts {
		if a.channel == convo.ChannelChatapp && a.provider == phoneNumberID {
			return a
		}
	}
	return nil
}

// findContact resolves (phone_number_id, phone_number) to a contact:
// with phone_number_id, the contact of that chatapp account; without it,
// the company's contact with that phone and the most recent interaction on
// any of its chatapp accounts. The chat-channel layer (/chatapp/...) is
// specific to chatapp, so a botapp contact that happens to have a
// phone is never its answer.
func (co *company) findContact(phoneNumberID, norm string) *contact {
	if phoneNumberID == "" {
		var onChatapp []*contact
		for ct := range co.withPhone(norm) {
			if ct.account.channel == convo.ChannelChatapp {
				onChatapp = append(onChatapp, ct)
			}
		}
		return mostRecent(onChatapp)
	}
	acc := co.chatappAccount(phoneNumberID)
	if acc == nil {
		return nil
	}
	return co.contactOn(acc.id, norm)
}

var errContactNotFound = errf(http.StatusNotFound, convo.CodeContactNotFound, "Contact not found.")

// handleCreateContact serves POST /chatapp/contacts (the
// phone_number_id is a chatapp account's provider identifier): atomic (the
// contact and its identity on the account are
// created under one lock, or nothing is), 201.
//
// Checks in order: phone_number_id, phone_number, name present
// (MISSING_PARAM), phone_number valid (INVALID_PARAM), account found
// (CHANNEL_NOT_FOUND), no contact with that phone on that account yet
// (CONTACT_EXISTS).
func (s *Server) handleCreateContact(w http.ResponseWriter, r *http.Request, co *company, _ []string) {
	var pnid, p, name, norm string
	body, e := decodeBody(r)
	if e == nil {
		pnid, e = body.required("phone_number_id")
	}
	if e == nil {
		p, e = body.required("phone_number")
	}
	if e == nil {
		name, e = body.required("name")
	}
	if e == nil {
		norm, e = normalizeParam("phone_number", p)
	}
	if e != nil {
		s.writeError(w, r, e)
		return
	}
	e = s.withStore(readWrite, func() *apiError {
		acc := co.chatappAccount(pnid)
		if acc == nil {
			return errf(http.StatusNotFound, convo.CodeChannelNotFound, "Channel not found for phone_number_id "+pnid+".")
		}
		if co.contactOn(acc.id, norm) != nil {
			return errf(http.StatusConflict, convo.CodeContactExists, "A contact with this phone number already exists.")
		}
		if _, err := s.addContact(co, Contact{ChannelAccountID: acc.id, PhoneNumber: norm, Name: name}); err != nil {
			return errf(http.StatusInternalServerError, codeInternalError, "The contact could not be created.")
		}
		return nil
	})
	if e != nil {
		s.writeError(w, r, e)
		return
	}
	s.writeJSON(w, http.StatusCreated, convo.Confirmation{Message: MsgContactCreated})
}

// handleLookupContact serves GET /chatapp/contacts/lookup (
// without phone_number_id, the contact with the most recent interaction on
// any chatapp account). tag_names joins the names with "," (no space), in
// the order the tags
// were added.
func (s *Server) handleLookupContact(w http.ResponseWriter, r *http.Request, co *company, _ []string) {
	q := r.URL.Query()
	p := q.Get("phone_number")
	if p == "" {
		s.writeError(w, r, missingParam("phone_number"))
		return
	}
	norm, e := normalizeParam("phone_number", p)
	if e != nil {
		s.writeError(w, r, e)
		return
	}
	var out convo.Contact
	e = s.withStore(readOnly, func() *apiError {
		ct := co.findContact(q.Get("phone_number_id"), norm)
		if ct == nil {
			return errContactNotFound
		}
		names := make([]string, len(ct.tags))
		for i, t := range ct.tags {
			names[i] = t.name
		}
		out = convo.Contact{ID: ct.id, PhoneNumber: ct.phone, Name: ct.name, Email: ct.email, Gender: ct.gender, TagNamesRaw: strings.Join(names, ",")}
		return nil
	})
	if e != nil {
		s.writeError(w, r, e)
		return
	}
	s.writeJSON(w, http.StatusOK, out)
}

// contactRequest reads the JSON body of a contact call and the contact it
// names (phone_number_id optional; phone_number required). It answers
// the error itself and reports false when the request ends there.
func (s *Server) contactRequest(w http.ResponseWriter, r *http.Request) (body jsonBody, pnid, norm string, ok bool) {
	var p string
	body, e := decodeBody(r)
	if e == nil {
		pnid, _, e = body.str("phone_number_id")
	}
	if e == nil {
		p, e = body.required("phone_number")
	}
	if e == nil {
		norm, e = normalizeParam("phone_number", p)
	}
	if e != nil {
		s.writeError(w, r, e)
		return nil, "", "", false
	}
	return body, pnid, norm, true
}

// updateContact applies change to the named contact under the write lock, or
// answers 404 CONTACT_NOT_FOUND; it reports whether the contact was found.
func (s *Server) updateContact(w http.ResponseWriter, r *http.Request, co *company, pnid, norm string, change func(*contact)) bool {
	e := s.withStore(readWrite, func() *apiError {
		ct := co.findContact(pnid, norm)
		if ct == nil {
			return errContactNotFound
		}
		change(ct)
		return nil
	})
	if e != nil {
		s.writeError(w, r, e)
	}
	return e == nil
}

// handleFields serves PATCH /chatapp/contacts/custom-fields:
// the fields sent are merged into the contact's, the others stay unchanged.
// Values must be strings (INVALID_PARAM naming the field otherwise).
func (s *Server) handleFields(w http.ResponseWriter, r *http.Request, co *company, _ []string) {
	body, pnid, norm, ok := s.contactRequest(w, r)
	if !ok {
		return
	}
	raw, ok := body["custom_fields"]
	if !ok || string(raw) == "null" {
		s.writeError(w, r, missingParam("custom_fields"))
		return
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(raw, &obj); err != nil || obj == nil {
		s.writeError(w, r, invalidParam("custom_fields must be an object of string values"))
		return
	}
	fields := make(map[string]string, len(obj))
	for k, v := range obj {
		var sv string
		if err := json.Unmarshal(v, &sv); err != nil || string(v) == "null" {
			s.writeError(w, r, invalidParam("custom_fields."+k+" must be a string"))
			return
		}
		fields[k] = sv
	}
	found := s.updateContact(w, r, co, pnid, norm, func(ct *contact) {
		if ct.customFields == nil {
			ct.customFields = make(map[string]string, len(fields))
		}
		for k, v := range fields {
			ct.customFields[k] = v
		}
	})
	if !found {
		return
	}
	s.writeJSON(w, http.StatusOK, convo.Confirmation{Message: MsgCustomFieldsUpdated})
}

// handleRemoveTags serves DELETE /chatapp/contacts/tags:
// tag_ids is one string of ids separated by commas (spaces around ids
// ignored); ids the contact does not carry are ignored.
func (s *Server) handleRemoveTags(w http.ResponseWriter, r *http.Request, co *company, _ []string) {
	body, pnid, norm, ok := s.contactRequest(w, r)
	if !ok {
		return
	}
	ids, e := body.required("tag_ids")
	if e != nil {
		s.writeError(w, r, e)
		return
	}
	remove := map[string]bool{}
	for _, id := range strings.Split(ids, ",") {
		if id = strings.TrimSpace(id); id != "" {
			remove[id] = true
		}
	}
	if len(remove) == 0 {
		s.writeError(w, r, missingParam("tag_ids"))
		return
	}
	found := s.updateContact(w, r, co, pnid, norm, func(ct *contact) {
		kept := ct.tags[:0]
		for _, t := range ct.tags {
			if !remove[t.id] {
				kept = append(kept, t)
			}
		}
		ct.tags = kept
	})
	if !found {
		return
	}
	s.writeJSON(w, http.StatusOK, convo.Confirmation{Message: MsgTagsRemoved})
}

// phoneParamError is the INVALID_PARAM of a phone parameter that
// phone.Normalize refused, naming the parameter and what is wrong.
func phoneParamError(name string, err error) *apiError {
	if errors.Is(err, phone.ErrNotDigits) {
		return invalidParam(name + " must be a country code plus digits; only spaces and + - ( ) . may separate them")
	}
	return invalidParam(name + " must have 8 to 15 digits")
}
