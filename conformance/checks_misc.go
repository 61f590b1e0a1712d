package conformance

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"
)

func attachmentChecks() []*check {
	return []*check{
		{id: "attachments/get", basis: BasisDecision, fn: checkAttachment,
			title: "GET /attachments/{media_id}: media_id, an absolute temporary url, expires_at after now, the message's mime_type, file_size and filename"},
		{id: "attachments/unknown", basis: BasisDecision, fn: checkUnknownAttachment,
			title: "an unknown media_id: 404 in the error envelope"},
	}
}

func checkAttachment(ctx context.Context, r *runner, c *check) {
	if r.d.mediaMsg == nil {
		c.skipf("no message with available media was read")
		return
	}
	md := r.d.mediaMsg["media"].(map[string]any)
	id := str(md, "media_id")
	ex, ok := r.get(ctx, c, "/attachments/"+url.PathEscape(id), nil)
	if !ok {
		return
	}
	data, ok := envelope(c, ex, http.StatusOK)
	if !ok {
		return
	}
	if got, ok := data.str("media_id", false); ok && got != id {
		c.failf(ex, "data.media_id is %q, want %q", got, id)
	}
	raw, _ := data.str("url", false)
	u, err := url.Parse(raw)
	if err != nil || !u.IsAbs() || u.Host == "" {
		c.failf(ex, "data.url is not an absolute URL")
		return
	}
	if exp, ok := data.stamp("expires_at", false); ok && !exp.After(envelopeTime(ex)) {
		c.failf(ex, "data.expires_at %s is not after the envelope's timestamp", exp.Format(time.RFC3339Nano))
	}
	for _, k := range []string{"mime_type", "filename"} {
		if got, _ := data.str(k, true); md[k] != nil && got != str(md, k) {
			c.failf(ex, "data.%s is %q, the message says %q", k, got, str(md, k))
		}
	}
	size, hasSize := data.integer("file_size", true)
	if hasSize && md["file_size"] != nil && fmt.Sprint(size) != fmt.Sprint(md["file_size"]) {
		c.failf(ex, "data.file_size is %d, the message says %v", size, md["file_size"])
	}
	// The temporary address needs no key: fetch it without one.
	file, ok := r.do(ctx, c, req{path: raw, auth: authOff})
	if !ok {
		return
	}
	if file.status != http.StatusOK {
		c.failf(file, "the temporary url answers %d without a key, want 200", file.status)
	} else if hasSize && int64(len(file.body)) != size {
		c.failf(file, "the file has %d bytes, data.file_size says %d", len(file.body), size)
	}
}

func checkUnknownAttachment(ctx context.Context, r *runner, c *check) {
	ex, ok := r.get(ctx, c, "/attachments/"+randomUUID(), nil)
	if !ok {
		return
	}
	errorAnswer(c, ex, http.StatusNotFound, "")
}

func contactChecks() []*check {
	return []*check{
		{id: "contacts/lookup", basis: BasisSpec, spec: "Finds one contact by phone number within one channel number.", fn: checkLookup,
			title: "GET /chatapp/contacts/lookup finds a chatapp conversation's contact: id, phone_number digits, name, email, gender, tag_names"},
		{id: "contacts/lookup-missing-phone", basis: BasisSpec, spec: "| phone_number | string | country code and digits only; required (400 `MISSING_PARAM` when absent) |", fn: checkLookupMissing,
			title: "lookup without phone_number: 400 MISSING_PARAM naming phone_number"},
		{id: "contacts/lookup-unknown", basis: BasisSpec, spec: "Response `data`: contact (2.7). Errors: 400 `MISSING_PARAM`, 404 `CONTACT_NOT_FOUND`.", fn: checkLookupUnknown,
			title: "lookup of a phone no contact has: 404 CONTACT_NOT_FOUND"},
		{id: "contacts/lookup-any-number", basis: BasisDecision, fn: checkLookupAnyNumber,
			title: "lookup without phone_number_id searches the whole company and finds the contact"},
		{id: "contacts/lookup-unknown-number", basis: BasisDecision, fn: checkLookupUnknownNumber,
			title: "lookup on a phone_number_id the company does not have: 404 CONTACT_NOT_FOUND"},
		{id: "contacts/lookup-letters", basis: BasisDecision, fn: checkLookupLetters,
			title: "a phone number with letters: 400 INVALID_PARAM"},
	}
}

// chatappContact is a chatapp conversation and the provider_identifier of
// its account, or nil.
func (r *runner) chatappContact() (map[string]any, string) {
	for _, cv := range r.d.convs {
		if str(cv, "channel") != "chatapp" {
			continue
		}
		for _, ch := range r.d.channels {
			if str(ch, "id") == str(cv, "channel_account_id") {
				return cv, str(ch, "provider_identifier")
			}
		}
	}
	return nil, ""
}

// checkContact checks the fields of a contact.
func checkContact(f fields) {
	f.uuid("id")
	if p, ok := f.str("phone_number", false); ok && strings.Trim(p, "0123456789") != "" {
		f.c.failf(f.ex, "%s.phone_number %q is not digits only", f.where, p)
	}
	f.str("name", false)
	f.str("email", true)
	f.str("gender", true)
	f.str("tag_names", false)
}

func checkLookup(ctx context.Context, r *runner, c *check) {
	cv, pnid := r.chatappContact()
	if cv == nil {
		c.skipf("no chatapp conversation on a listed account")
		return
	}
	ex, ok := r.get(ctx, c, "/chatapp/contacts/lookup", url.Values{"phone_number_id": {pnid}, "phone_number": {str(cv, "channel_identifier")}})
	if !ok {
		return
	}
	data, ok := envelope(c, ex, http.StatusOK)
	if !ok {
		return
	}
	checkContact(data)
	if id := str(data.m, "id"); id != str(cv, "contact_id") {
		c.failf(ex, "the contact's id is %q, conversation %s says contact_id %q", id, str(cv, "id"), str(cv, "contact_id"))
	}
	r.d.lookup = data.m
}

func checkLookupMissing(ctx context.Context, r *runner, c *check) {
	ex, ok := r.get(ctx, c, "/chatapp/contacts/lookup", nil)
	if !ok {
		return
	}
	if msg, ok := errorAnswer(c, ex, http.StatusBadRequest, "MISSING_PARAM"); ok {
		mentions(c, ex, msg, "phone_number")
	}
}

func checkLookupUnknown(ctx context.Context, r *runner, c *check) {
	ex, ok := r.get(ctx, c, "/chatapp/contacts/lookup", url.Values{"phone_number": {"999" + unknownPhoneDigits()}})
	if !ok {
		return
	}
	errorAnswer(c, ex, http.StatusNotFound, "CONTACT_NOT_FOUND")
}

// unknownPhoneDigits are 9 digits that, after 999 (a country code no one
// has), make a phone no contact has.
func unknownPhoneDigits() string {
	return fmt.Sprintf("%09d", time.Now().UnixNano()%1e9)
}

func checkLookupAnyNumber(ctx context.Context, r *runner, c *check) {
	cv, _ := r.chatappContact()
	if cv == nil || r.d.lookup == nil {
		c.skipf("no contact was found by lookup")
		return
	}
	phone := str(r.d.lookup, "phone_number")
	ex, ok := r.get(ctx, c, "/chatapp/contacts/lookup", url.Values{"phone_number": {phone}})
	if !ok {
		return
	}
	if data, ok := envelope(c, ex, http.StatusOK); ok {
		checkContact(data)
		if got := str(data.m, "phone_number"); got != phone {
			c.failf(ex, "the contact found has phone_number %q, want %q", got, phone)
		}
	}
}

func checkLookupUnknownNumber(ctx context.Context, r *runner, c *check) {
	cv, _ := r.chatappContact()
	if cv == nil {
		c.skipf("no chatapp conversation on a listed account")
		return
	}
	ex, ok := r.get(ctx, c, "/chatapp/contacts/lookup", url.Values{"phone_number_id": {"convocheck-no-such-number"}, "phone_number": {str(cv, "channel_identifier")}})
	if !ok {
		return
	}
	errorAnswer(c, ex, http.StatusNotFound, "CONTACT_NOT_FOUND")
}

func checkLookupLetters(ctx context.Context, r *runner, c *check) {
	ex, ok := r.get(ctx, c, "/chatapp/contacts/lookup", url.Values{"phone_number": {"5511abc88880004"}})
	if !ok {
		return
	}
	if msg, ok := errorAnswer(c, ex, http.StatusBadRequest, "INVALID_PARAM"); ok {
		mentions(c, ex, msg, "phone_number")
	}
}

func errorChecks() []*check {
	return []*check{
		{id: "errors/unknown-path", basis: BasisDecision, fn: checkUnknownPath,
			title: "an unknown path: 404 in the error envelope, path in its /api/v1 form"},
		{id: "errors/api-prefix", basis: BasisDecision, fn: checkAPIPrefix,
			title: "the internal prefix /api/v1 serves the same answers as /v1"},
		{id: "errors/duplicate-param", basis: BasisDecision, fn: checkDuplicateParam,
			title: "a query parameter given twice: 400 INVALID_PARAM naming it"},
	}
}

func checkUnknownPath(ctx context.Context, r *runner, c *check) {
	ex, ok := r.get(ctx, c, "/convocheck-no-such-path", nil)
	if !ok {
		return
	}
	errorAnswer(c, ex, http.StatusNotFound, "")
}

func checkAPIPrefix(ctx context.Context, r *runner, c *check) {
	if r.d.channelsEx == nil {
		c.skipf("the channel list could not be read")
		return
	}
	if !strings.HasSuffix(r.base.Path, "/v1") {
		c.skipf("the base URL does not end with /v1")
		return
	}
	ex, ok := r.do(ctx, c, req{path: "/channels", prefix: "/api/v1"})
	if !ok {
		return
	}
	if _, ok := envelope(c, ex, http.StatusOK); ok && !sameJSON(ex.data(), r.d.channelsEx.data()) {
		c.failf(ex, "/api/v1/channels answers other data than /v1/channels")
	}
}

func checkDuplicateParam(ctx context.Context, r *runner, c *check) {
	ex, ok := r.get(ctx, c, "/conversations", url.Values{"limit": {"1", "2"}})
	if !ok {
		return
	}
	if msg, ok := errorAnswer(c, ex, http.StatusBadRequest, "INVALID_PARAM"); ok {
		mentions(c, ex, msg, "limit")
	}
}

func formatChecks() []*check {
	return []*check{
		{id: "format/timestamps", basis: BasisDecision, fn: checkTimestampLayout,
			title: "every date-time read is written in UTC with exactly three fractional digits and Z (2026-11-22T10:04:05.123Z)"},
	}
}

// checkTimestampLayout reports the date-times the checks before it read
// that are RFC 3339 but not in the layout the fake writes.
func checkTimestampLayout(_ context.Context, r *runner, c *check) {
	l := r.d.stamps
	switch {
	case l.seen == 0:
		c.skipf("no date-time was read")
	case l.count > 0:
		c.failf(nil, "%d of the %d date-times read are not in the layout, e.g. %s", l.count, l.seen, strings.Join(l.other, "; "))
	}
}
