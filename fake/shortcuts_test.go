package fake_test

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	convo "github.com/convoapi/convo-go"
	"github.com/convoapi/convo-go/fake"
)

// sinceEdges are values of since at and beyond the edges of the range of
// Unix nanoseconds (1677-09-21T00:12:43.145224192Z to
// 2262-04-11T23:47:16.854775807Z) and of the store's message times (1678
// to 2261), where a shortcut that keys on a clamped time answers for
// another since.
var sinceEdges = []string{
	"0001-01-01T00:00:00Z", "1000-01-01T00:00:00Z", "1500-01-01T00:00:00Z", "1677-09-21T00:12:43.145Z",
	"1677-09-21T00:12:43.146Z", "1678-01-01T00:00:00Z", "1970-01-01T00:00:00Z", "2026-10-23T10:00:00Z",
	"2026-11-21T10:00:00Z", "2026-11-22T10:00:00Z", "2261-12-31T23:59:59.999Z", "2262-04-11T23:47:16.854Z",
	"2262-04-11T23:47:16.855Z", "3000-01-01T00:00:00Z", "9999-12-31T23:59:59.999Z",
}

// walkStore seeds a company with accounts, contacts, conversations and
// messages from 1678 to now, media and tags, for the differential walk.
func walkStore(t *testing.T, r *rand.Rand) (*fake.Server, []string) {
	s, err := fake.NewHandler(fake.WithClock(fake.NewManualClock(t0)), fake.WithRateLimit(0, 0))
	require.NoError(t, err)
	co := s.Company()
	accs := []string{
		co.AddChannel(fake.ChannelAccount{Channel: convo.ChannelChatapp, DisplayName: "Sales", ProviderIdentifier: "5511940000001"}),
		co.AddChannel(fake.ChannelAccount{Channel: convo.ChannelBotapp, DisplayName: "Bot"}),
	}
	var convs []string
	for i := range 12 {
		ct := co.AddContact(fake.Contact{ChannelAccountID: accs[0], PhoneNumber: fmt.Sprintf("55119%08d", i), Name: fmt.Sprintf("Contact %d", i)})
		if i%3 == 0 {
			co.TagContact(ct, "vip", fmt.Sprintf("t%d", i%5))
		}
		cv := co.AddConversation(fake.Conversation{ContactID: ct})
		convs = append(convs, cv)
		for j := range r.IntN(40) {
			var at time.Time
			switch r.IntN(4) {
			case 0: // the oldest times the store takes
				at = time.Date(1678, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(r.IntN(1000)) * time.Hour)
			case 1:
				at = t0.Add(-time.Duration(r.IntN(60*24)) * time.Hour)
			default:
				at = t0.Add(-time.Duration(r.IntN(48*60)) * time.Minute)
			}
			m := fake.Message{Sender: fake.SenderContact, Text: fmt.Sprintf("m%d-%d", i, j), At: at}
			if j%7 == 3 {
				m = fake.Message{Sender: fake.SenderContact, Type: convo.MessageImage, At: at,
					Media: &fake.Media{MimeType: "image/png", Content: "png bytes", Filename: "a.png"}}
			}
			co.AddMessage(cv, m)
		}
	}
	return s, convs
}

// shortcutAnswer is one answer, errorId and the token of a temporary
// attachment URL masked (each is new on every call).
func shortcutAnswer(h http.Handler, key, method, target, body string) string {
	var rdr *strings.Reader
	if body != "" {
		rdr = strings.NewReader(body)
	}
	var req *http.Request
	if rdr != nil {
		req = httptest.NewRequest(method, target, rdr)
		req.Header.Set("Content-Type", "application/json")
	} else {
		req = httptest.NewRequest(method, target, nil)
	}
	req.Header.Set("Authorization", "Bearer "+key)
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	out := errorIDText.ReplaceAllString(rec.Body.String(), `"errorId":"…"`)
	out = fileToken.ReplaceAllString(out, "/_files/…")
	return fmt.Sprintf("%d %s %s\n%s", rec.Code, rec.Header().Get("Date"), rec.Header().Get("Content-Type"), out)
}

var (
	errorIDText = regexp.MustCompile(`"errorId":"[^"]*"`)
	fileToken   = regexp.MustCompile(`/_files/[A-Za-z0-9_-]+`)
)

// Every remaining cache and shortcut answers as the plain path: a walk
// generated from a fixed seed (every endpoint, since at and beyond the
// edges of the time ranges, every cursor to the end, writes in between) on
// a frozen clock reads each answer with every shortcut on, then off, and
// the two are equal to the byte but for errorId.
func TestShortcutsAnswerAsThePlainPath(t *testing.T) {
	r := rand.New(rand.NewPCG(37, 1919))
	s, convs := walkStore(t, r)
	h, key := s.Handler(), s.APIKey()
	reads, pages := 0, 0
	// read answers target with the shortcuts on and off, compares, and
	// follows next_cursor to the end.
	read := func(target string) {
		for target != "" {
			s.SetShortcutsOff(0)
			on := shortcutAnswer(h, key, http.MethodGet, target, "")
			s.SetShortcutsOff(fake.AllShortcuts)
			off := shortcutAnswer(h, key, http.MethodGet, target, "")
			s.SetShortcutsOff(0)
			require.Equal(t, off, on, "GET %s", target)
			reads++
			var page struct {
				Data struct {
					NextCursor *string `json:"next_cursor"`
				} `json:"data"`
			}
			_, body, _ := strings.Cut(on, "\n")
			if json.Unmarshal([]byte(body), &page) != nil || page.Data.NextCursor == nil {
				return
			}
			pages++
			u, err := url.Parse(target)
			require.NoError(t, err)
			q := u.Query()
			q.Set("cursor", *page.Data.NextCursor)
			u.RawQuery = q.Encode()
			target = u.String()
		}
	}
	pick := func(xs []string) string { return xs[r.IntN(len(xs))] }
	limits := []string{"", "1", "2", "5", "100"}
	for step := range 600 {
		q := url.Values{}
		if l := pick(limits); l != "" {
			q.Set("limit", l)
		}
		switch r.IntN(10) {
		case 0:
			read("/v1/channels")
		case 1, 2:
			for _, p := range []string{"since", "until"} {
				if r.IntN(2) == 0 {
					q.Set(p, pick(sinceEdges))
				}
			}
			if r.IntN(3) == 0 {
				q.Set("status", pick([]string{"open", "resolved", "all"}))
			}
			read("/v1/conversations?" + q.Encode())
		case 3, 4, 5:
			if r.IntN(4) != 0 {
				q.Set("since", pick(sinceEdges))
			}
			read("/v1/conversations/" + pick(convs) + "/messages?" + q.Encode())
		case 6:
			q.Set("include", pick([]string{"unanswered", "stale", "automation_only", "orphan_contact"}))
			read("/v1/conversations/anomalies?" + q.Encode())
		case 7:
			read(fmt.Sprintf("/v1/chatapp/contacts/lookup?phone_number=55119%08d&phone_number_id=5511940000001", r.IntN(14)))
		case 8: // writes: a message arrives, a contact is made or changed
			cv := pick(convs)
			switch r.IntN(4) {
			case 0:
				s.Company().Inbound(cv, fmt.Sprintf("new %d", step), t0.Add(-time.Duration(r.IntN(100))*time.Minute))
			case 1:
				shortcutAnswer(h, key, http.MethodPost, "/v1/chatapp/contacts", fmt.Sprintf(`{"phone_number_id":"5511940000001","phone_number":"55118%08d","name":"New %d"}`, step, step))
			case 2:
				shortcutAnswer(h, key, http.MethodPatch, "/v1/chatapp/contacts/custom-fields", fmt.Sprintf(`{"phone_number":"55119%08d","custom_fields":{"plan":"p%d"}}`, r.IntN(12), step))
			case 3:
				shortcutAnswer(h, key, http.MethodDelete, "/v1/chatapp/contacts/tags", fmt.Sprintf(`{"phone_number":"55119%08d","tag_names":["vip"]}`, r.IntN(12)))
			}
		case 9: // an attachment of a media message, and a wrong path
			read("/v1/conversations/" + pick(convs) + "/messages?limit=100&since=1000-01-01T00:00:00Z")
			read("/v1/attachments/" + fmt.Sprintf("%d", r.IntN(3)))
			read("/api/v1/channels/")
		}
	}
	assert.Greater(t, reads, 600, "the walk read enough")
	assert.Greater(t, pages, 100, "and followed cursors")
}

// The page cache keys on the window as the page shows it: a since before
// 1678 answers with its own window.since, not one read before.
func TestMessagePageSinceBeforeTheNanosecondRange(t *testing.T) {
	s := newServer(t)
	co := s.Company()
	acc := co.AddChannel(fake.ChannelAccount{Channel: convo.ChannelChatapp})
	cv := co.AddConversation(fake.Conversation{ContactID: co.AddContact(fake.Contact{ChannelAccountID: acc, PhoneNumber: "5511987654321"})})
	for i := range 3 {
		co.Inbound(cv, fmt.Sprint(i), t0.Add(-time.Duration(i+1)*time.Hour))
	}
	for _, since := range []string{"1000-01-01T00:00:00.000Z", "1500-01-01T00:00:00.000Z", "1000-01-01T00:00:00.000Z"} {
		first := get(t, s, "/conversations/"+cv+"/messages?limit=2&since="+since).JSON(t)["data"].(map[string]any)
		assert.Equal(t, since, first["window"].(map[string]any)["since"])
		next := get(t, s, "/conversations/"+cv+"/messages?cursor="+url.QueryEscape(first["next_cursor"].(string))).JSON(t)["data"].(map[string]any)
		assert.Equal(t, since, next["window"].(map[string]any)["since"], "the cursor keeps the window")
	}
}
