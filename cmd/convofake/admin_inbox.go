package main

import (
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/convoapi/convo-go/fake"
)

// The page's views read the fake's store through its Go listings
// (fake.Company's Channels, Conversations, Messages, AnomalyBuckets,
// MediaData), never through its HTTP API: looking adds no journal entry,
// takes no rate-limit token, fills no anomaly cache, makes no temporary
// file link and never moves the clock, so a client's next call answers as
// it would have.

// channelJSON is a channel account or webchat widget of GET
// /_fake/state/channels.
type channelJSON struct {
	ID                 string `json:"id"`
	Channel            string `json:"channel"`
	DisplayName        string `json:"display_name"`
	ProviderIdentifier string `json:"provider_identifier"`
	Status             string `json:"status"`
}

// channelsJSON is the answer of GET /_fake/state/channels: the company's
// key, masked, and its channel accounts and webchat widgets.
type channelsJSON struct {
	CompanyID string        `json:"company_id"`
	APIKey    string        `json:"api_key_masked"`
	Items     []channelJSON `json:"items"`
}

// maskKey keeps the first 4 characters of a key (fewer for a short one).
func maskKey(k string) string {
	n := min(4, len(k)/3)
	return k[:n] + strings.Repeat("•", 8)
}

// channels: GET /_fake/state/channels[?company=].
func (a *admin) channels(w http.ResponseWriter, r *http.Request) error {
	co, err := a.company(r)
	if err != nil {
		return err
	}
	out := channelsJSON{CompanyID: co.ID(), APIKey: maskKey(co.APIKey()), Items: []channelJSON{}}
	for _, ch := range co.Channels() {
		out.Items = append(out.Items, channelJSON{ID: ch.ID, Channel: string(ch.Channel), DisplayName: ch.DisplayName,
			ProviderIdentifier: ch.ProviderIdentifier, Status: "connected"})
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

// inboxItemJSON is a conversation of the inbox: the fake's inspection of
// it, its contact's name, its last message, how long the contact has
// waited (since the last inbound message, when it is the last message) and
// the anomaly buckets it is in.
type inboxItemJSON struct {
	fake.Conversation
	ContactName  string        `json:"contact_name"`
	LastMessage  *fake.Message `json:"last_message"`
	WaitingHours *float64      `json:"waiting_hours"`
	Buckets      []string      `json:"buckets"`
}

type inboxJSON struct {
	CompanyID string          `json:"company_id"`
	Now       string          `json:"now"`
	Items     []inboxItemJSON `json:"items"`
}

// bucketsByConversation maps a conversation id to the anomaly buckets it is
// in, by name, sorted.
func bucketsByConversation(co *fake.Company, thresholdHours int) map[string][]string {
	out := map[string][]string{}
	for name, ids := range co.AnomalyBuckets(thresholdHours) {
		for _, id := range ids {
			out[id] = append(out[id], name)
		}
	}
	for _, names := range out {
		slices.Sort(names)
	}
	return out
}

// inbox: GET /_fake/state/conversations[?company=&status=&assigned=&bucket=&threshold_hours=]:
// the company's conversations, newest activity first; status is open,
// resolved or archived (default: every status), assigned true or false,
// bucket one of the anomaly buckets as the report would count them now
// with threshold_hours (default 4).
func (a *admin) inbox(w http.ResponseWriter, r *http.Request) error {
	co, err := a.company(r)
	if err != nil {
		return err
	}
	q := r.URL.Query()
	if v := q.Get("assigned"); v != "" && v != "true" && v != "false" {
		return badRequest("assigned: want true or false")
	}
	threshold := fake.DefaultThresholdHours
	if v := q.Get("threshold_hours"); v != "" {
		if threshold, err = strconv.Atoi(v); err != nil || threshold < 1 || threshold > 24 {
			return badRequest("threshold_hours: want a whole number from 1 to 24")
		}
	}
	marks := bucketsByConversation(co, threshold)
	now := a.srv.Clock().Now()
	out := inboxJSON{CompanyID: co.ID(), Now: formatTime(now), Items: []inboxItemJSON{}}
	names := map[string]string{}
	for _, ct := range co.Contacts() {
		names[ct.ID] = ct.Name
	}
	for _, cv := range co.Conversations() {
		if keep(cv, q, marks[cv.ID]) {
			out.Items = append(out.Items, inboxItem(co, cv, names[cv.ContactID], marks[cv.ID], now))
		}
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

// keep applies the filters status, assigned and bucket.
func keep(cv fake.Conversation, q url.Values, buckets []string) bool {
	switch {
	case q.Get("status") != "" && string(cv.Status) != q.Get("status"):
		return false
	case q.Get("assigned") == "true" && cv.AssignedTo == "":
		return false
	case q.Get("assigned") == "false" && cv.AssignedTo != "":
		return false
	case q.Get("bucket") != "" && !slices.Contains(buckets, q.Get("bucket")):
		return false
	}
	return true
}

func inboxItem(co *fake.Company, cv fake.Conversation, name string, buckets []string, now time.Time) inboxItemJSON {
	it := inboxItemJSON{Conversation: cv, ContactName: name, Buckets: buckets}
	if it.Buckets == nil {
		it.Buckets = []string{}
	}
	if m, ok := co.LastMessage(cv.ID); ok {
		it.LastMessage = &m
	}
	if !cv.LastInboundAt.IsZero() && cv.LastInboundAt.Equal(cv.LastMessageAt) {
		h := float64(now.Sub(cv.LastInboundAt).Round(6*time.Minute)) / float64(time.Hour)
		it.WaitingHours = &h
	}
	return it
}

// threadMessageJSON is a message of a thread: the fake's inspection of it
// and, for available media, the admin address of the file (GET
// /_fake/state/media/{media_id}).
type threadMessageJSON struct {
	fake.Message
	MediaURL string `json:"media_url,omitempty"`
}

type threadJSON struct {
	Conversation fake.Conversation   `json:"conversation"`
	ContactName  string              `json:"contact_name"`
	Messages     []threadMessageJSON `json:"messages"`
}

// thread: GET /_fake/state/conversations/{id}/messages[?company=]: the
// conversation and every message, oldest first (no time window).
func (a *admin) thread(w http.ResponseWriter, r *http.Request) error {
	co, err := a.company(r)
	if err != nil {
		return err
	}
	cv, ok := co.Conversation(r.PathValue("id"))
	if !ok {
		return notFound("conversation", r.PathValue("id"))
	}
	msgs, _ := co.Messages(cv.ID)
	out := threadJSON{Conversation: cv, Messages: make([]threadMessageJSON, 0, len(msgs))}
	if ct, ok := co.Contact(cv.ContactID); ok {
		out.ContactName = ct.Name
	}
	for _, m := range msgs {
		tm := threadMessageJSON{Message: m}
		if m.Media != nil && m.Media.MediaID != "" {
			tm.MediaURL = "/_fake/state/media/" + url.PathEscape(m.Media.MediaID) + "?company=" + url.QueryEscape(co.ID())
		}
		out.Messages = append(out.Messages, tm)
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

// media: GET /_fake/state/media/{media_id}[?company=]: the content of an
// available file, read from the store (no temporary link is made). It is
// always sent as application/octet-stream, to download: a file of any type
// never runs on the admin API's origin; the page shows it from a blob.
func (a *admin) media(w http.ResponseWriter, r *http.Request) error {
	co, err := a.company(r)
	if err != nil {
		return err
	}
	md, ok := co.MediaData(r.PathValue("id"))
	if !ok {
		return notFound("media", r.PathValue("id"))
	}
	h := w.Header()
	h.Set("Content-Type", "application/octet-stream")
	h.Set("Content-Disposition", "attachment")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Content-Security-Policy", "sandbox; default-src 'none'")
	h.Set("Cache-Control", "no-store")
	h.Set("Content-Length", strconv.Itoa(len(md.Data)))
	_, _ = w.Write(md.Data)
	return nil
}
