package main

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path"
	"slices"
	"strings"
	"time"

	"github.com/convoapi/convo-go"
	"github.com/convoapi/convo-go/fake"
)

// uiAgent is the User-Agent of the reads the admin API makes of the fake's
// own API for the inbox views: the journal shows them with it, and the
// page hides them unless asked.
const uiAgent = "convofake-ui"

// sinceAll is the since of the inbox's reads: every message and
// conversation, not only the API's recent window.
const sinceAll = "2000-01-01T00:00:00.000Z"

// The fake exports no listing of a company's channels, conversations,
// messages or anomaly buckets (only [fake.Company.Contacts] and getters by
// id), so the inbox endpoints read them through the fake's own API,
// in-process, with the company's key: each read is journaled (User-Agent
// convofake-ui) and counts in the rate limit. A read that a fault rule
// would answer is not made (it would use the rule up): the endpoint says
// which rule stands in the way.

// readAPI runs GET /v1<target> on the fake for co and decodes the envelope's
// data into v.
func (a *admin) readAPI(co *fake.Company, target string, v any) error {
	rel, _, _ := strings.Cut(target, "?")
	for _, fr := range a.srv.Faults() {
		if faultMatches(fr.Fault, http.MethodGet, rel) {
			return errorf(http.StatusConflict, "fault_in_force",
				"fault rule %d matches GET %s: the page does not read through it (that would use it up); remove the rule to see this view", fr.ID, rel)
		}
	}
	req := httptest.NewRequest(http.MethodGet, "/v1"+target, nil)
	req.Header.Set("Authorization", "Bearer "+co.APIKey())
	req.Header.Set("User-Agent", uiAgent)
	rec := httptest.NewRecorder()
	a.srv.ServeHTTP(rec, req)
	var env struct {
		Data    json.RawMessage `json:"data"`
		Message struct {
			Error   string `json:"error"`
			Message string `json:"message"`
		} `json:"message"`
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &env); err != nil || rec.Code != http.StatusOK {
		return errorf(http.StatusBadGateway, "api_read_failed", "GET %s answered %d %s %s", rel, rec.Code, env.Message.Error, env.Message.Message)
	}
	return json.Unmarshal(env.Data, v)
}

// faultMatches is the fake's matching rule of a fault (method, path
// pattern relative to the base URL, a leading /v1 or /api/v1 ignored).
func faultMatches(f fake.Fault, method, rel string) bool {
	if f.Method != "" && !strings.EqualFold(f.Method, method) {
		return false
	}
	p := f.Path
	for _, prefix := range []string{"/api/v1", "/v1"} {
		if rest, ok := strings.CutPrefix(p, prefix); ok && (rest == "" || rest[0] == '/') {
			p = rest
			break
		}
	}
	ok, err := path.Match(p, rel)
	return p == "" || err == nil && ok
}

// channelsJSON is the answer of GET /_fake/state/channels: the company's
// key, masked, and its channel accounts as GET /channels lists them.
type channelsJSON struct {
	CompanyID string                 `json:"company_id"`
	APIKey    string                 `json:"api_key_masked"`
	Items     []convo.ChannelAccount `json:"items"`
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
	out := channelsJSON{CompanyID: co.ID(), APIKey: maskKey(co.APIKey())}
	var page struct {
		Items []convo.ChannelAccount `json:"items"`
	}
	if err := a.readAPI(co, "/channels", &page); err != nil {
		return err
	}
	out.Items = append([]convo.ChannelAccount{}, page.Items...)
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

// conversationIDs lists the ids of the company's conversations, every
// status, newest activity first.
func (a *admin) conversationIDs(co *fake.Company) ([]string, error) {
	return a.readIDs(co, "/conversations", url.Values{"status": {"all"}, "since": {sinceAll}, "limit": {"100"}}, "id")
}

// readIDs pages through a list of the fake's API (next_cursor) and
// returns the field idKey of every item.
func (a *admin) readIDs(co *fake.Company, path string, q url.Values, idKey string) ([]string, error) {
	var ids []string
	for range 1000 { // at most 100 000 items
		var page struct {
			Items      []map[string]any `json:"items"`
			NextCursor *string          `json:"next_cursor"`
		}
		if err := a.readAPI(co, path+"?"+q.Encode(), &page); err != nil {
			return nil, err
		}
		for _, it := range page.Items {
			id, _ := it[idKey].(string)
			ids = append(ids, id)
		}
		if page.NextCursor == nil {
			break
		}
		q.Set("cursor", *page.NextCursor)
	}
	return ids, nil
}

// buckets maps a conversation id to the anomaly buckets it is in (the 100
// worst of each bucket, as the report lists them).
func (a *admin) buckets(co *fake.Company) (map[string][]string, error) {
	var report struct {
		Buckets map[string]struct {
			Items []struct {
				ConversationID string `json:"conversation_id"`
			} `json:"items"`
		} `json:"buckets"`
	}
	target := "/conversations/anomalies?include=" + fake.BucketUnassigned + "," + fake.BucketAutomationOnly + "&limit=100"
	if err := a.readAPI(co, target, &report); err != nil {
		return nil, err
	}
	out := map[string][]string{}
	for name, b := range report.Buckets {
		for _, it := range b.Items {
			out[it.ConversationID] = append(out[it.ConversationID], name)
		}
	}
	for _, names := range out {
		slices.Sort(names)
	}
	return out, nil
}

// inbox: GET /_fake/state/conversations[?company=&status=&assigned=&bucket=]:
// the company's conversations, newest activity first; status is open,
// resolved or archived (default: every status), assigned true or false.
func (a *admin) inbox(w http.ResponseWriter, r *http.Request) error {
	co, err := a.company(r)
	if err != nil {
		return err
	}
	q := r.URL.Query()
	if v := q.Get("assigned"); v != "" && v != "true" && v != "false" {
		return badRequest("assigned: want true or false")
	}
	ids, err := a.conversationIDs(co)
	if err != nil {
		return err
	}
	marks, err := a.buckets(co)
	if err != nil {
		return err
	}
	now := a.srv.Clock().Now()
	out := inboxJSON{CompanyID: co.ID(), Now: formatTime(now), Items: []inboxItemJSON{}}
	names := map[string]string{}
	for _, ct := range co.Contacts() {
		names[ct.ID] = ct.Name
	}
	for _, id := range ids {
		cv, ok := a.srv.Conversation(id)
		if !ok || !keep(cv, q, marks[id]) {
			continue
		}
		out.Items = append(out.Items, a.inboxItem(co, cv, names[cv.ContactID], marks[id], now))
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

func (a *admin) inboxItem(co *fake.Company, cv fake.Conversation, name string, buckets []string, now time.Time) inboxItemJSON {
	it := inboxItemJSON{Conversation: cv, ContactName: name, Buckets: buckets}
	if it.Buckets == nil {
		it.Buckets = []string{}
	}
	var page struct {
		Items []struct {
			MessageID string `json:"message_id"`
		} `json:"items"`
	}
	if cv.MessageCount > 0 && a.readAPI(co, "/conversations/"+url.PathEscape(cv.ID)+"/messages?limit=1&since="+sinceAll, &page) == nil && len(page.Items) > 0 {
		if m, ok := a.srv.Message(page.Items[0].MessageID); ok {
			it.LastMessage = &m
		}
	}
	if !cv.LastInboundAt.IsZero() && cv.LastInboundAt.Equal(cv.LastMessageAt) {
		h := float64(now.Sub(cv.LastInboundAt).Round(6*time.Minute)) / float64(time.Hour)
		it.WaitingHours = &h
	}
	return it
}

// threadMessageJSON is a message of a thread: the fake's inspection of it
// and, for available media, a temporary link to the file (GET
// /attachments/{media_id}).
type threadMessageJSON struct {
	fake.Message
	MediaURL string `json:"media_url,omitempty"`
}

type threadJSON struct {
	Conversation fake.Conversation   `json:"conversation"`
	ContactName  string              `json:"contact_name"`
	Messages     []threadMessageJSON `json:"messages"`
}

// thread: GET /_fake/state/conversations/{id}/messages: the conversation
// and every message, oldest first.
func (a *admin) thread(w http.ResponseWriter, r *http.Request) error {
	cv, ok := a.srv.Conversation(r.PathValue("id"))
	if !ok {
		return notFound("conversation", r.PathValue("id"))
	}
	co, err := a.companyByID(cv.CompanyID)
	if err != nil {
		return err
	}
	out := threadJSON{Conversation: cv, Messages: []threadMessageJSON{}}
	if ct, ok := a.srv.Contact(cv.ContactID); ok {
		out.ContactName = ct.Name
	}
	ids, err := a.messageIDs(co, cv.ID)
	if err != nil {
		return err
	}
	for _, id := range ids {
		if m, ok := a.srv.Message(id); ok {
			out.Messages = append(out.Messages, a.threadMessage(co, m))
		}
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

// messageIDs lists the ids of a conversation's messages, oldest first.
func (a *admin) messageIDs(co *fake.Company, convID string) ([]string, error) {
	ids, err := a.readIDs(co, "/conversations/"+url.PathEscape(convID)+"/messages", url.Values{"since": {sinceAll}, "limit": {"100"}}, "message_id")
	slices.Reverse(ids) // the API lists newest first
	return ids, err
}

func (a *admin) threadMessage(co *fake.Company, m fake.Message) threadMessageJSON {
	tm := threadMessageJSON{Message: m}
	if m.Media == nil || m.Media.MediaID == "" || m.Media.MediaStatus != convo.MediaAvailable {
		return tm
	}
	var att struct {
		URL string `json:"url"`
	}
	if a.readAPI(co, "/attachments/"+url.PathEscape(m.Media.MediaID), &att) == nil {
		tm.MediaURL = att.URL
	}
	return tm
}

func (a *admin) companyByID(id string) (*fake.Company, error) {
	for _, co := range a.srv.Companies() {
		if co.ID() == id {
			return co, nil
		}
	}
	return nil, notFound("company", id)
}
