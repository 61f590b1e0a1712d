package fake_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	convo "github.com/convoapi/convo-go"
	"github.com/convoapi/convo-go/fake"
)

// seedGen makes random seed documents from a fixed random source.
type seedGen struct {
	r     *rand.Rand
	phone int
	used  map[string]bool // account ref + phone
}

func (g *seedGen) pick(n int) int { return g.r.IntN(n) }

func (g *seedGen) chance(p float64) bool { return g.r.Float64() < p }

func pickOf[T any](g *seedGen, xs ...T) T { return xs[g.pick(len(xs))] }

// ago is a duration before now: a small set of values, so that times tie.
func (g *seedGen) ago() string { return fmt.Sprintf("%dm", g.pick(60)*g.pick(900)) }

func (g *seedGen) company(i int) fake.CompanySeed {
	cs := fake.CompanySeed{}
	if i > 0 {
		cs.APIKey = fmt.Sprintf("key-company-%d", i)
	}
	for j, ch := range []convo.Channel{convo.ChannelChatapp, convo.ChannelChatapp, convo.ChannelBotapp, convo.ChannelWebchat} {
		cs.Channels = append(cs.Channels, fake.ChannelAccount{Ref: fmt.Sprintf("ch%d", j), Channel: ch})
	}
	var phones []string
	g.used = map[string]bool{}
	for j := range 30 + g.pick(30) {
		ct := g.contact(j, &phones)
		cs.Contacts = append(cs.Contacts, ct)
	}
	for j := range 40 + g.pick(40) {
		cs.Conversations = append(cs.Conversations, g.conversation(j, cs.Contacts))
	}
	return cs
}

func (g *seedGen) contact(j int, phones *[]string) fake.Contact {
	ch := g.pick(4)
	ct := fake.Contact{Ref: fmt.Sprintf("ct%d", j), ChannelAccountID: fmt.Sprintf("ch%d", ch), CreatedAgo: g.ago()}
	if ch < 2 || ch == 2 && g.chance(0.5) {
		// Another account's phone now and then, so that a lookup without
		// phone_number_id has to choose.
		if p := pickOf(g, append(*phones, "")...); p != "" && g.chance(0.3) && !g.used[ct.ChannelAccountID+p] {
			ct.PhoneNumber = p
		} else {
			g.phone++
			ct.PhoneNumber = fmt.Sprintf("55119%08d", g.phone)
			*phones = append(*phones, ct.PhoneNumber)
		}
		g.used[ct.ChannelAccountID+ct.PhoneNumber] = true
	}
	if g.chance(0.5) {
		ct.Name = fmt.Sprintf("Contact %d", j)
	}
	if g.chance(0.3) {
		ct.Email = fmt.Sprintf("c%d@example.com", j)
	}
	for _, tag := range []string{"vip", "lead", "churn", "b2b"} {
		if g.chance(0.25) {
			ct.Tags = append(ct.Tags, tag)
		}
	}
	if g.chance(0.3) {
		ct.CustomFields = map[string]string{"plan": pickOf(g, "free", "pro"), "n": fmt.Sprint(j)}
	}
	if g.chance(0.3) {
		ct.SequenceName = "onboarding"
	}
	return ct
}

func (g *seedGen) conversation(j int, contacts []fake.Contact) fake.Conversation {
	cv := fake.Conversation{
		Ref: fmt.Sprintf("cv%d", j), ContactID: contacts[g.pick(len(contacts))].Ref, CreatedAgo: g.ago(),
		Status: pickOf(g, convo.ConversationOpen, convo.ConversationOpen, convo.ConversationResolved, convo.ConversationArchived),
	}
	if g.chance(0.4) {
		cv.AssignedTo = pickOf(g, "ana", "bo")
	}
	if g.chance(0.1) {
		n := g.pick(5)
		cv.UnreadCount = &n
	}
	for range g.pick(9) {
		cv.Messages = append(cv.Messages, g.message())
	}
	return cv
}

func (g *seedGen) message() fake.Message {
	m := fake.Message{
		Sender: pickOf(g, fake.SenderContact, fake.SenderContact, fake.SenderAgent, fake.SenderPhone, fake.SenderAutomation, fake.SenderSystem),
		Type:   pickOf[convo.MessageType](g, "text", "text", "text", "image", "audio", "document", "sticker", "video", "unsupported"),
		Ago:    g.ago(),
	}
	if g.chance(0.7) && m.Type != "unsupported" && !(m.Sender == fake.SenderSystem && m.Type == "text") {
		m.Text = fmt.Sprintf("text %d", g.pick(1000)) // system and unsupported messages have none
	}
	if m.Sender != fake.SenderContact && g.chance(0.7) {
		m.Status = pickOf[convo.MessageStatus](g, "queued", "sent", "delivered", "read", "failed")
		if m.Status == "failed" {
			m.FailureReason = "undeliverable"
		}
	}
	if m.Type != "text" && m.Type != "unsupported" {
		m.Media = g.media()
	}
	for range g.pick(3) {
		m.Reactions = append(m.Reactions, fake.Reaction{Emoji: pickOf(g, "👍", "❤️"), Direction: pickOf(g, convo.DirectionInbound, convo.DirectionOutbound)})
	}
	return m
}

func (g *seedGen) media() *fake.Media {
	switch g.pick(5) {
	case 0:
		data := make([]byte, 1+g.pick(300))
		for i := range data {
			data[i] = byte(g.pick(256))
		}
		return &fake.Media{MimeType: "image/png", Data: data}
	case 1:
		return &fake.Media{MimeType: "application/pdf", Filename: "doc.pdf", Content: "pdf body"}
	case 2:
		return &fake.Media{MediaStatus: convo.MediaAvailable, FileSize: int64(1 + g.pick(5000))}
	case 3:
		return &fake.Media{MediaStatus: convo.MediaUnknown, MimeType: "audio/ogg", FileSize: int64(g.pick(3))}
	}
	return nil
}

// cursorSig is the signature part of a cursor: keyed by a per-server
// secret, so the only part of an answer that differs between two servers.
var cursorSig = regexp.MustCompile(`("next_cursor":"[A-Za-z0-9_-]+)\.[A-Za-z0-9_-]+"`)

// errorID is the random id of an error answer.
var errorID = regexp.MustCompile(`"errorId":"ERR-[0-9A-Z-]+"`)

// comparable is an answer without what differs between two servers by
// design: the signatures of cursors and the ids of errors.
func comparable(body []byte) string {
	return string(errorID.ReplaceAll(cursorSig.ReplaceAll(body, []byte(`$1"`)), []byte(`"errorId":""`)))
}

// reader reads the same API path from both servers, with each server's own
// cursors, and compares the answers byte for byte (signatures of cursors
// aside). It returns the original's answer.
type reader struct {
	t        *testing.T
	old, new *fake.Server
	key      string
	reads    int
}

func (rd *reader) get(path string) []byte {
	rd.t.Helper()
	rd.reads++
	a := get(rd.t, rd.old, path, bearer(rd.key))
	b := get(rd.t, rd.new, path, bearer(rd.key))
	require.Equal(rd.t, a.Status, b.Status, "%s: %s", path, a.Body)
	require.Equal(rd.t, comparable(a.Body), comparable(b.Body), path)
	return a.Body
}

// pages reads every page of a list on both servers, each following its own
// next_cursor.
func (rd *reader) pages(path string, q url.Values) {
	rd.t.Helper()
	q.Set("limit", "7")
	curOld, curNew := "", ""
	for {
		qo, qn := cloneValues(q), cloneValues(q)
		if curOld != "" {
			qo.Set("cursor", curOld)
			qn.Set("cursor", curNew)
		}
		a := get(rd.t, rd.old, path+"?"+qo.Encode(), bearer(rd.key))
		b := get(rd.t, rd.new, path+"?"+qn.Encode(), bearer(rd.key))
		rd.reads++
		require.Equal(rd.t, a.Status, b.Status, "%s %s", path, a.Body)
		require.Equal(rd.t, comparable(a.Body), comparable(b.Body), path+"?"+q.Encode())
		curOld, curNew = nextCursor(rd.t, a.Body), nextCursor(rd.t, b.Body)
		if curOld == "" || a.Status != http.StatusOK {
			return
		}
	}
}

func cloneValues(q url.Values) url.Values {
	out := url.Values{}
	for k, v := range q {
		out[k] = slices.Clone(v)
	}
	return out
}

func nextCursor(t *testing.T, body []byte) string {
	var env struct {
		Data struct {
			NextCursor *string `json:"next_cursor"`
		} `json:"data"`
	}
	require.NoError(t, json.Unmarshal(body, &env))
	if env.Data.NextCursor == nil {
		return ""
	}
	return *env.Data.NextCursor
}

// mutate changes the original through the Go methods and the API, as a
// test or a user would, so that the export holds more than a seed's shapes.
func mutate(t *testing.T, s *fake.Server, g *seedGen) {
	for _, co := range s.Companies() {
		cts := co.Contacts()
		for i := range 10 {
			ct := cts[g.pick(len(cts))]
			if ct.PhoneNumber == "" {
				continue
			}
			body := map[string]any{"phone_number": ct.PhoneNumber}
			switch i % 3 {
			case 0:
				body["custom_fields"] = map[string]string{"x": fmt.Sprint(i)}
				call(t, s, http.MethodPatch, "/v1/chatapp/contacts/custom-fields", body, bearer(co.APIKey()))
			case 1:
				call(t, s, http.MethodPost, "/v1/chatapp/sequences/cancel", body, bearer(co.APIKey()))
			default:
				if len(ct.TagIDs) > 0 {
					body["tag_ids"] = ct.TagIDs[0]
					call(t, s, http.MethodDelete, "/v1/chatapp/contacts/tags", body, bearer(co.APIKey()))
				}
			}
		}
		cs, _ := co.ExportSeed()
		acc := cs.Channels[0]
		for i := range 5 {
			call(t, s, http.MethodPost, "/v1/chatapp/contacts", map[string]any{
				"phone_number_id": acc.ProviderIdentifier, "phone_number": fmt.Sprintf("+55 21 9%07d", i+g.pick(1000)*10), "name": "New",
			}, bearer(co.APIKey()))
			cv, msg := co.Receive(acc.ID, fmt.Sprintf("552199%06d", g.pick(100)), "Walk-in", fake.Message{Text: "hi", Ago: g.ago()})
			co.AddReaction(msg, fake.Reaction{Emoji: "🙂"})
			co.Assign(cv, "ana")
		}
	}
}

// The property: whatever the state, a server loaded from its export answers
// every read as it does. The states are generated from fixed random seeds
// (each a table row), then changed through the API and the Go methods.
func TestExportSeed_RoundTrip(t *testing.T) {
	for _, rs := range []uint64{2026, 20} {
		t.Run(fmt.Sprint(rs), func(t *testing.T) {
			g := &seedGen{r: rand.New(rand.NewPCG(rs, 26))}
			seed := &fake.Seed{}
			for i := range 4 {
				seed.Companies = append(seed.Companies, g.company(i))
			}
			old := newServer(t, fake.WithSeed(seed))
			mutate(t, old, g)

			doc, err := json.Marshal(old.ExportSeed())
			require.NoError(t, err)
			loaded, err := fake.LoadSeed(bytes.NewReader(doc))
			require.NoError(t, err)
			fresh := newServer(t, fake.WithSeed(loaded), fake.WithDefaultCompanyID(loaded.Companies[0].ID))
			assert.Equal(t, old.Company().ID(), fresh.Company().ID(), "the default company's id, given back")
			again, err := json.Marshal(fresh.ExportSeed())
			require.NoError(t, err)
			assert.JSONEq(t, string(doc), string(again), "the export of the reloaded server")

			var records, reads int
			for _, co := range old.Companies() {
				rd := &reader{t: t, old: old, new: fresh, key: co.APIKey()}
				cs, ok := co.ExportSeed()
				require.True(t, ok)
				records += compareCompany(rd, cs)
				reads += rd.reads
			}
			t.Logf("%d records, %d reads compared", records, reads)
			assert.Greater(t, records, 1000, "records compared")
		})
	}
}

// compareCompany compares every read of one company; it returns how many
// records (contacts, conversations, messages, media) it covered.
func compareCompany(rd *reader, cs fake.CompanySeed) int {
	rd.get("/channels")
	compareLists(rd, cs)
	records := len(cs.Contacts) + len(cs.Conversations)
	for _, cv := range cs.Conversations {
		rd.pages("/conversations/"+cv.ID+"/messages", url.Values{})
		rd.pages("/conversations/"+cv.ID+"/messages", url.Values{"since": {t0.Add(-72 * time.Hour).Format(time.RFC3339)}})
		for _, m := range cv.Messages {
			records++
			if m.Media != nil && m.Media.MediaID != "" {
				compareAttachment(rd, m.Media.MediaID)
			}
		}
	}
	for _, ct := range cs.Contacts {
		if ct.PhoneNumber == "" {
			continue
		}
		rd.get("/chatapp/contacts/lookup?phone_number=" + ct.PhoneNumber)
		for _, ch := range cs.Channels {
			rd.get("/chatapp/contacts/lookup?phone_number=" + ct.PhoneNumber + "&phone_number_id=" + ch.ProviderIdentifier)
		}
	}
	compareWrites(rd, cs)
	for _, th := range []string{"1", "4", "24"} {
		rd.get("/conversations/anomalies?include=unassigned,automation_only&threshold_hours=" + th)
		rd.get("/conversations/anomalies?limit=3&threshold_hours=" + th)
	}
	return records
}

// compareLists reads the conversation list under every filter, page by page.
func compareLists(rd *reader, cs fake.CompanySeed) {
	filters := []url.Values{{}}
	for _, st := range []string{"open", "resolved", "archived", "all"} {
		filters = append(filters, url.Values{"status": {st}})
		for _, as := range []string{"true", "false"} {
			filters = append(filters, url.Values{"status": {st}, "assigned": {as}})
		}
	}
	for _, ch := range []string{"chatapp", "botapp", "webchat"} {
		filters = append(filters, url.Values{"channel": {ch}, "status": {"all"}})
	}
	for _, ch := range cs.Channels {
		filters = append(filters, url.Values{"channel_id": {ch.ID}, "status": {"all"}})
	}
	for _, d := range []time.Duration{time.Hour, 24 * time.Hour, 10 * 24 * time.Hour} {
		at := t0.Add(-d).Format(time.RFC3339)
		filters = append(filters, url.Values{"since": {at}, "status": {"all"}}, url.Values{"until": {at}, "status": {"all"}})
	}
	for _, ct := range cs.Contacts[:10] {
		if ct.PhoneNumber != "" {
			filters = append(filters, url.Values{"phone": {ct.PhoneNumber}, "status": {"all"}})
		}
		filters = append(filters, url.Values{"channel_identifier": {ct.ChannelIdentifier}, "status": {"all"}})
	}
	for _, f := range filters {
		rd.pages("/conversations", f)
	}
}

// compareAttachment compares the attachment read (its temporary URL aside)
// and the file's bytes.
func compareAttachment(rd *reader, mediaID string) {
	t := rd.t
	a := get(t, rd.old, "/attachments/"+mediaID, bearer(rd.key))
	b := get(t, rd.new, "/attachments/"+mediaID, bearer(rd.key))
	var da, db struct {
		Data map[string]any `json:"data"`
	}
	require.NoError(t, json.Unmarshal(a.Body, &da))
	require.NoError(t, json.Unmarshal(b.Body, &db))
	ua, ub := da.Data["url"].(string), db.Data["url"].(string)
	delete(da.Data, "url")
	delete(db.Data, "url")
	require.Equal(t, da.Data, db.Data, mediaID)
	fa := callRaw(t, rd.old, http.MethodGet, ua, nil)
	fb := callRaw(t, rd.new, http.MethodGet, ub, nil)
	require.Equal(t, http.StatusOK, fa.Status)
	require.Equal(t, fa.Body, fb.Body, mediaID)
	require.Equal(t, fa.Header.Get("Content-Disposition"), fb.Header.Get("Content-Disposition"))
}

// compareWrites sends the same writes that depend on kept state (canceled
// sequences, tag ids) to both servers, after the reads.
func compareWrites(rd *reader, cs fake.CompanySeed) {
	t := rd.t
	for _, ct := range cs.Contacts {
		if ct.PhoneNumber == "" || ct.SequenceName == "" && len(ct.TagIDs) == 0 {
			continue
		}
		for _, w := range []struct {
			method, path string
			body         map[string]any
		}{
			{http.MethodPost, "/v1/chatapp/sequences/cancel", map[string]any{"phone_number": ct.PhoneNumber}},
			{http.MethodDelete, "/v1/chatapp/contacts/tags", map[string]any{"phone_number": ct.PhoneNumber, "tag_ids": strings.Join(ct.TagIDs, ",")}},
		} {
			a := call(t, rd.old, w.method, w.path, w.body, bearer(rd.key))
			b := call(t, rd.new, w.method, w.path, w.body, bearer(rd.key))
			require.Equal(t, comparable(a.Body), comparable(b.Body), "%s %s %v", w.method, w.path, w.body)
		}
		rd.get("/chatapp/contacts/lookup?phone_number=" + ct.PhoneNumber)
	}
}

func TestLoad_ExportedFields_Refused(t *testing.T) {
	chat := []fake.ChannelAccount{{Ref: "a", Channel: convo.ChannelChatapp}}
	media := func(id string) fake.Message {
		return fake.Message{Type: "image", Media: &fake.Media{MediaID: id, Content: "x"}}
	}
	tests := []struct {
		name string
		cs   []fake.CompanySeed
		want string
	}{
		{"tag ids not one per tag", []fake.CompanySeed{{Channels: chat, Contacts: []fake.Contact{
			{ChannelAccountID: "a", PhoneNumber: "5511900000001", Tags: []string{"vip"}, TagIDs: []string{"b0000000-0000-4000-8000-000000000001", "b0000000-0000-4000-8000-000000000002"}}}}},
			"companies[0].contacts[0].tag_ids: 2 ids for 1 tags"},
		{"a tag with two ids", []fake.CompanySeed{{Channels: chat, Contacts: []fake.Contact{
			{ChannelAccountID: "a", PhoneNumber: "5511900000001", Tags: []string{"vip"}, TagIDs: []string{"b0000000-0000-4000-8000-000000000001"}},
			{ChannelAccountID: "a", PhoneNumber: "5511900000002", Tags: []string{"vip"}, TagIDs: []string{"b0000000-0000-4000-8000-000000000002"}}}}},
			`companies[0].contacts[1].tag_ids: tag "vip" already has id "b0000000-0000-4000-8000-000000000001"`},
		{"an id for two tags", []fake.CompanySeed{{Channels: chat, Contacts: []fake.Contact{
			{ChannelAccountID: "a", PhoneNumber: "5511900000001", Tags: []string{"vip", "lead"}, TagIDs: []string{"b0000000-0000-4000-8000-000000000001", "b0000000-0000-4000-8000-000000000001"}}}}},
			`companies[0].contacts[0].tag_ids: id "b0000000-0000-4000-8000-000000000001" is already tag "vip"`},
		{"a media id twice", []fake.CompanySeed{{Channels: chat, Contacts: []fake.Contact{{Ref: "c", ChannelAccountID: "a", PhoneNumber: "5511900000001"}},
			Conversations: []fake.Conversation{{ContactID: "c", Messages: []fake.Message{media("d0000000-0000-4000-8000-000000000001"), media("d0000000-0000-4000-8000-000000000001")}}}}},
			`companies[0].conversations[0].messages[1].media.media_id: media id "d0000000-0000-4000-8000-000000000001" is already used`},
		{"a company id twice", []fake.CompanySeed{{}, {ID: "e0000000-0000-4000-8000-000000000002", APIKey: "k1"}, {ID: "e0000000-0000-4000-8000-000000000002", APIKey: "k2"}},
			`companies[2].id: the same id as companies[1]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := newServer(t).Load(&fake.Seed{Companies: tt.cs})
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
}

func TestCompanyExportSeed_Gone(t *testing.T) {
	s := newServer(t)
	co := s.AddCompany("other-key")
	cs, ok := co.ExportSeed()
	require.True(t, ok)
	assert.Equal(t, fake.CompanySeed{ID: co.ID(), APIKey: "other-key"}, cs)
	s.Clear()
	_, ok = co.ExportSeed()
	assert.False(t, ok)
}

// ExportSeed writes the state as a seed document; a fresh server loads it
// and answers alike.
func ExampleServer_ExportSeed() {
	s, err := fake.NewHandler(fake.WithSeed(fake.DemoSeed()))
	if err != nil {
		panic(err)
	}
	doc, err := json.Marshal(s.ExportSeed()) // the file cmd/convofake --state writes
	if err != nil {
		panic(err)
	}
	seed, err := fake.LoadSeed(bytes.NewReader(doc))
	if err != nil {
		panic(err)
	}
	again, err := fake.NewHandler(fake.WithSeed(seed))
	if err != nil {
		panic(err)
	}
	fmt.Println(len(s.Company().Contacts()) == len(again.Company().Contacts()))
	id := s.Company().Contacts()[0].ID
	_, found := again.Contact(id)
	fmt.Println(found)
	// Output:
	// true
	// true
}
