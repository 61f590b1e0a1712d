package conformance

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/convoapi/convo-go/internal/phone"
)

// writeContactName is the name of the contact a write run creates.
const writeContactName = "convocheck test contact"

func writeChecks(write bool) []*check {
	checks := []*check{
		{id: "write/create-contact", basis: BasisSpec, fn: checkCreateContact,
			title: "POST /chatapp/contacts: 201 with data.message, or 409 CONTACT_EXISTS when an earlier run created it"},
		{id: "write/create-again", basis: BasisSpec, fn: checkCreateAgain,
			title: "creating the same contact again: 409 CONTACT_EXISTS"},
		{id: "write/create-missing-name", basis: BasisSpec, fn: checkWriteMissing(http.MethodPost, "/chatapp/contacts", "name"),
			title: "contact creation without name: 400 MISSING_PARAM naming name"},
		{id: "write/create-unknown-channel", basis: BasisSpec, fn: checkCreateUnknownChannel,
			title: "contact creation on an unknown phone_number_id: 404 CHANNEL_NOT_FOUND"},
		{id: "write/lookup", basis: BasisSpec, fn: checkWriteLookup,
			title: "the contact is found by lookup, its phone number normalized"},
		{id: "write/custom-fields", basis: BasisSpec, fn: checkCustomFields,
			title: "PATCH /chatapp/contacts/custom-fields sets convocheck_run: 200 with data.message"},
		{id: "write/custom-fields-missing", basis: BasisSpec, fn: checkWriteMissing(http.MethodPatch, "/chatapp/contacts/custom-fields", "custom_fields"),
			title: "custom fields without custom_fields: 400 MISSING_PARAM"},
		{id: "write/remove-tags", basis: BasisDecision, fn: checkRemoveTags,
			title: "DELETE /chatapp/contacts/tags of a tag id the contact does not carry: 200 with data.message"},
		{id: "write/remove-tags-missing", basis: BasisSpec, fn: checkWriteMissing(http.MethodDelete, "/chatapp/contacts/tags", "tag_ids"),
			title: "tag removal without tag_ids: 400 MISSING_PARAM"},
		{id: "write/sequence-cancel", basis: BasisSpec, fn: checkSequenceCancel,
			title: "POST /chatapp/sequences/cancel: 200 with canceled (boolean) and message, even with nothing to cancel"},
		{id: "write/sequence-cancel-missing", basis: BasisSpec, fn: checkWriteMissing(http.MethodPost, "/chatapp/sequences/cancel", "phone_number"),
			title: "sequence cancel without phone_number: 400 MISSING_PARAM"},
	}
	if !write {
		for _, c := range checks {
			c.fn = func(_ context.Context, _ *runner, c *check) {
				c.skipf("a read-only run: writes need --write with a phone_number_id and a test phone number")
			}
		}
	}
	return checks
}

// target is the body fields naming the run's contact.
func (r *runner) target() map[string]any {
	return map[string]any{"phone_number_id": r.cfg.Write.PhoneNumberID, "phone_number": r.cfg.Write.PhoneNumber}
}

func (r *runner) post(ctx context.Context, c *check, method, path string, body map[string]any) (*exchange, bool) {
	return r.do(ctx, c, req{method: method, path: path, body: body})
}

// confirmation checks a data.message answer.
func confirmation(c *check, ex *exchange, status int) {
	if data, ok := envelope(c, ex, status); ok {
		data.str("message", false)
	}
}

func checkCreateContact(ctx context.Context, r *runner, c *check) {
	body := r.target()
	body["name"] = writeContactName
	ex, ok := r.post(ctx, c, http.MethodPost, "/chatapp/contacts", body)
	if !ok {
		return
	}
	if ex.status == http.StatusConflict {
		errorAnswer(c, ex, http.StatusConflict, "CONTACT_EXISTS")
		return
	}
	confirmation(c, ex, http.StatusCreated)
}

func checkCreateAgain(ctx context.Context, r *runner, c *check) {
	body := r.target()
	body["name"] = writeContactName
	if ex, ok := r.post(ctx, c, http.MethodPost, "/chatapp/contacts", body); ok {
		errorAnswer(c, ex, http.StatusConflict, "CONTACT_EXISTS")
	}
}

func checkCreateUnknownChannel(ctx context.Context, r *runner, c *check) {
	body := map[string]any{"phone_number_id": "convocheck-no-such-number", "phone_number": r.cfg.Write.PhoneNumber, "name": writeContactName}
	if ex, ok := r.post(ctx, c, http.MethodPost, "/chatapp/contacts", body); ok {
		errorAnswer(c, ex, http.StatusNotFound, "CHANNEL_NOT_FOUND")
	}
}

func checkWriteMissing(method, path, field string) func(context.Context, *runner, *check) {
	return func(ctx context.Context, r *runner, c *check) {
		body := r.target() // every field but the one the check leaves out
		delete(body, field)
		ex, ok := r.post(ctx, c, method, path, body)
		if !ok {
			return
		}
		if msg, ok := errorAnswer(c, ex, http.StatusBadRequest, "MISSING_PARAM"); ok {
			mentions(c, ex, msg, field)
		}
	}
}

func checkWriteLookup(ctx context.Context, r *runner, c *check) {
	ex, ok := r.get(ctx, c, "/chatapp/contacts/lookup", url.Values{"phone_number_id": {r.cfg.Write.PhoneNumberID}, "phone_number": {r.cfg.Write.PhoneNumber}})
	if !ok {
		return
	}
	data, ok := envelope(c, ex, http.StatusOK)
	if !ok {
		return
	}
	checkContact(data)
	if want, err := phone.Normalize(r.cfg.Write.PhoneNumber); err == nil && str(data.m, "phone_number") != want {
		c.failf(ex, "phone_number is %q, want the normalized %q", str(data.m, "phone_number"), want)
	}
}

func checkCustomFields(ctx context.Context, r *runner, c *check) {
	body := r.target()
	body["custom_fields"] = map[string]string{"convocheck_run": time.Now().UTC().Format(time.RFC3339)}
	if ex, ok := r.post(ctx, c, http.MethodPatch, "/chatapp/contacts/custom-fields", body); ok {
		confirmation(c, ex, http.StatusOK)
	}
}

func checkRemoveTags(ctx context.Context, r *runner, c *check) {
	body := r.target()
	body["tag_ids"] = "convocheck-no-such-tag"
	if ex, ok := r.post(ctx, c, http.MethodDelete, "/chatapp/contacts/tags", body); ok {
		confirmation(c, ex, http.StatusOK)
	}
}

func checkSequenceCancel(ctx context.Context, r *runner, c *check) {
	ex, ok := r.post(ctx, c, http.MethodPost, "/chatapp/sequences/cancel", r.target())
	if !ok {
		return
	}
	data, ok := envelope(c, ex, http.StatusOK)
	if !ok {
		return
	}
	data.boolean("canceled")
	if m, ok := data.str("message", false); ok && strings.TrimSpace(m) == "" {
		c.failf(ex, "data.message is empty")
	}
}
