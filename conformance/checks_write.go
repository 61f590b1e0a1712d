package conformance

import (
	"context"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/convoapi/convo-go/internal/phone"
)

// writeContactName is the name of the contact a write run creates.
const writeContactName = "convocheck test contact"

func writeChecks(write bool) []*check {
	checks := []*check{
		{id: "write/create-contact", basis: BasisDecision, fn: checkCreateContact,
			title: "POST /chatapp/contacts: 201 with data.message, or 409 CONTACT_EXISTS when an earlier run created it"},
		{id: "write/create-again", basis: BasisSpec, spec: "409 `CONTACT_EXISTS` (a contact with that phone number exists)", fn: checkCreateAgain,
			title: "creating the same contact again: 409 CONTACT_EXISTS"},
		{id: "write/create-missing-name", basis: BasisSpec, spec: "| name | string | required (400 `MISSING_PARAM` when absent) |", fn: checkWriteMissing(http.MethodPost, "/chatapp/contacts", "name"),
			title: "contact creation without name: 400 MISSING_PARAM naming name"},
		{id: "write/create-unknown-channel", basis: BasisSpec, spec: "404 `CHANNEL_NOT_FOUND` (invalid `phone_number_id` or channel not found)", fn: checkCreateUnknownChannel,
			title: "contact creation on an unknown phone_number_id: 404 CHANNEL_NOT_FOUND"},
		{id: "write/lookup", basis: BasisSpec, spec: "Phone numbers are normalized by the same rule as the inbound-message path.", fn: checkWriteLookup,
			title: "the contact is found by lookup, its phone number normalized"},
		{id: "write/custom-fields", basis: BasisDecision, fn: checkCustomFields,
			title: "PATCH /chatapp/contacts/custom-fields sets convocheck_run: 200 with data.message"},
		{id: "write/custom-fields-merged", basis: BasisSpec, spec: "Fields sent are merged into the existing ones. Fields not sent stay unchanged.", fn: checkCustomFieldsMerged,
			title: "custom fields sent are merged: a second field set keeps the first (read back through Config.CustomFields, a fake's admin API)"},
		{id: "write/custom-fields-missing", basis: BasisSpec, spec: "| custom_fields | object | map of field name to value (string values); required (400 `MISSING_PARAM` when absent) |", fn: checkWriteMissing(http.MethodPatch, "/chatapp/contacts/custom-fields", "custom_fields"),
			title: "custom fields without custom_fields: 400 MISSING_PARAM"},
		{id: "write/custom-fields-unknown-contact", basis: BasisSpec, spec: "Response `data.message`: string. Errors: 400 `MISSING_PARAM`, 404 `CONTACT_NOT_FOUND`.",
			fn:    checkUnknownContact(http.MethodPatch, "/chatapp/contacts/custom-fields", map[string]any{"custom_fields": map[string]string{"convocheck_probe": "x"}}),
			title: "custom fields of a phone no contact has: 404 CONTACT_NOT_FOUND"},
		{id: "write/remove-tags", basis: BasisDecision, fn: checkRemoveTags,
			title: "DELETE /chatapp/contacts/tags of a tag id the contact does not carry: 200 with data.message"},
		{id: "write/remove-tags-missing", basis: BasisSpec, spec: "| tag_ids | string | required (400 `MISSING_PARAM` when absent); one tag id is shown as a string |", fn: checkWriteMissing(http.MethodDelete, "/chatapp/contacts/tags", "tag_ids"),
			title: "tag removal without tag_ids: 400 MISSING_PARAM"},
		{id: "write/remove-tags-unknown-contact", basis: BasisSpec, spec: "Format for several tag ids: not shown. Response `data.message`: string. Errors: 400 `MISSING_PARAM`, 404 `CONTACT_NOT_FOUND`.",
			fn:    checkUnknownContact(http.MethodDelete, "/chatapp/contacts/tags", map[string]any{"tag_ids": "convocheck-no-such-tag"}),
			title: "tag removal of a phone no contact has: 404 CONTACT_NOT_FOUND"},
		{id: "write/sequence-cancel", basis: BasisSpec, spec: "The answer is HTTP 200 even when there was nothing to cancel.", fn: checkSequenceCancel,
			title: "POST /chatapp/sequences/cancel: 200 with canceled (boolean) and message, even with nothing to cancel"},
		{id: "write/sequence-cancel-repeat", basis: BasisSpec, spec: "`canceled` tells what happened.", fn: checkCancelRepeat,
			title: "a second cancel in a row has nothing to cancel: 200 with canceled false"},
		{id: "write/sequence-cancel-any-number", basis: BasisSpec,
			spec: "optional. When absent, the contact is searched across the whole company, taking the contact with the most recent interaction", fn: checkCancelAnyNumber,
			title: "sequence cancel without phone_number_id finds the contact across the company: 200 with canceled (boolean)"},
		{id: "write/sequence-cancel-missing", basis: BasisSpec, spec: "| phone_number | string | required (400 `MISSING_PARAM` when absent) |", fn: checkWriteMissing(http.MethodPost, "/chatapp/sequences/cancel", "phone_number"),
			title: "sequence cancel without phone_number: 400 MISSING_PARAM"},
		{id: "write/sequence-cancel-unknown-contact", basis: BasisSpec, spec: "Errors: 400 `MISSING_PARAM`, 404 `CONTACT_NOT_FOUND`, 500 `CANCEL_FAILED` (the cancellation failed).",
			fn:    checkUnknownContact(http.MethodPost, "/chatapp/sequences/cancel", nil),
			title: "sequence cancel of a phone no contact has: 404 CONTACT_NOT_FOUND"},
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
	r.d.writeContact = str(data.m, "id")
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

// cancelTarget cancels the sequences of the run's target contact and
// returns the exchange and its 200 answer's data.
func cancelTarget(ctx context.Context, r *runner, c *check) (*exchange, fields, bool) {
	ex, ok := r.post(ctx, c, http.MethodPost, "/chatapp/sequences/cancel", r.target())
	if !ok {
		return nil, fields{}, false
	}
	data, ok := envelope(c, ex, http.StatusOK)
	return ex, data, ok
}

func checkSequenceCancel(ctx context.Context, r *runner, c *check) {
	ex, data, ok := cancelTarget(ctx, r, c)
	if !ok {
		return
	}
	data.boolean("canceled")
	if m, ok := data.str("message", false); ok && strings.TrimSpace(m) == "" {
		c.failf(ex, "data.message is empty")
	}
}

// unknownPhone is a phone number no contact of the account has: 999 and
// the test number's digits reversed, 15 digits at most.
func (r *runner) unknownPhone() string {
	digits, err := phone.Normalize(r.cfg.Write.PhoneNumber)
	if err != nil {
		digits = "1234567890"
	}
	rev := []byte(digits)
	slices.Reverse(rev)
	out := "999" + string(rev)
	return out[:min(len(out), 15)]
}

// checkUnknownContact sends a write about a phone no contact has (with
// extra's fields) and wants 404 CONTACT_NOT_FOUND. Nothing is written.
func checkUnknownContact(method, path string, extra map[string]any) func(context.Context, *runner, *check) {
	return func(ctx context.Context, r *runner, c *check) {
		body := map[string]any{"phone_number_id": r.cfg.Write.PhoneNumberID, "phone_number": r.unknownPhone()}
		maps.Copy(body, extra)
		if ex, ok := r.post(ctx, c, method, path, body); ok {
			errorAnswer(c, ex, http.StatusNotFound, "CONTACT_NOT_FOUND")
		}
	}
}

// checkCustomFieldsMerged sets two fields one after the other and reads the
// contact's fields back through Config.CustomFields: the API shows no
// custom field, so the check runs only where the caller can read them (a
// fake). Without a reader it writes nothing.
func checkCustomFieldsMerged(ctx context.Context, r *runner, c *check) {
	switch {
	case r.cfg.CustomFields == nil:
		c.skipf("the API shows no custom field: give a reader of them (convocheck: $CONVOFAKE_ADMIN_URL and $CONVOFAKE_ADMIN_TOKEN of a convofake)")
		return
	case r.d.writeContact == "":
		c.skipf("the contact was not found (see write/lookup)")
		return
	}
	run := time.Now().UTC().Format(time.RFC3339Nano)
	var last *exchange
	for _, field := range []string{"convocheck_merge_a", "convocheck_merge_b"} {
		body := r.target()
		body["custom_fields"] = map[string]string{field: run}
		ex, ok := r.post(ctx, c, http.MethodPatch, "/chatapp/contacts/custom-fields", body)
		if !ok {
			return
		}
		if _, ok := envelope(c, ex, http.StatusOK); !ok {
			return
		}
		last = ex
	}
	fields, err := r.cfg.CustomFields(ctx, r.d.writeContact)
	if err != nil {
		c.failf(last, "reading the contact's custom fields: %s", r.redact.String(err.Error()))
		return
	}
	for _, field := range []string{"convocheck_merge_a", "convocheck_merge_b"} {
		if fields[field] != run {
			c.failf(last, "after setting convocheck_merge_a, then convocheck_merge_b, the contact's %s is %q, want %q: fields are merged, not replaced", field, fields[field], run)
		}
	}
}

func checkCancelRepeat(ctx context.Context, r *runner, c *check) {
	ex, data, ok := cancelTarget(ctx, r, c)
	if !ok {
		return
	}
	if canceled, ok := data.boolean("canceled"); ok && canceled {
		c.failf(ex, "a cancel right after a cancel reports canceled true: there was nothing left to cancel")
	}
}

func checkCancelAnyNumber(ctx context.Context, r *runner, c *check) {
	ex, ok := r.post(ctx, c, http.MethodPost, "/chatapp/sequences/cancel", map[string]any{"phone_number": r.cfg.Write.PhoneNumber})
	if !ok {
		return
	}
	if data, ok := envelope(c, ex, http.StatusOK); ok {
		data.boolean("canceled")
		data.str("message", false)
	}
}
