package conformance

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/convoapi/convo-go"
	"github.com/convoapi/convo-go/fake"
)

// SeedFromRecording turns the answers of a recording into a seed document
// of package fake (one company, the server's default), so that a fake
// started from it answers the recorded reads as the recorded server did.
// The seed's now, at which the fake's clock is frozen, is the first
// envelope timestamp of the recording.
//
// It takes channel accounts from the channel list, conversations from the
// conversation lists, messages from the message reads, contacts' details
// from lookups, and files' sizes from attachment answers. What reads
// cannot show is decided so, and said in the notes: an outbound message's
// sender is automation when the recorded anomaly report lists its
// conversation as automation_only and it came after the last inbound
// message, otherwise an agent; a conversation's agent is "agent"; a file's
// bytes are filler of the recorded size; custom fields and sequences are
// left out.
func SeedFromRecording(rd io.Reader) (*fake.Seed, []string, error) {
	entries, err := ReadRecording(rd)
	if err != nil {
		return nil, nil, err
	}
	b := &seedBuilder{convs: map[string]map[string]any{}, msgs: map[string]map[string]map[string]any{},
		lookups: map[string]map[string]any{}, files: map[string]map[string]any{}, automation: map[string]bool{}}
	for _, e := range entries {
		if e.Status/100 != 2 || len(e.Body) == 0 {
			continue
		}
		b.take(e)
	}
	if b.now.IsZero() {
		return nil, nil, fmt.Errorf("the recording has no successful answer to build a seed from")
	}
	return b.build()
}

type seedBuilder struct {
	now        time.Time
	channels   []map[string]any
	convOrder  []string
	convs      map[string]map[string]any
	msgs       map[string]map[string]map[string]any // conversation -> message id -> message
	lookups    map[string]map[string]any            // contact id -> contact
	files      map[string]map[string]any            // media id -> attachment data
	automation map[string]bool                      // conversations in automation_only
	sawReport  bool
}

var messagesPathRE = regexp.MustCompile(`^/conversations/([^/]+)/messages$`)

func (b *seedBuilder) take(e Entry) {
	v, _ := decodeJSON(e.Body).(map[string]any)
	if ts, err := time.Parse(time.RFC3339Nano, str(v, "timestamp")); err == nil && b.now.IsZero() {
		b.now = ts
	}
	data, _ := v["data"].(map[string]any)
	items := objects(asArray(data["items"]))
	switch p := e.Path; {
	case p == "/channels" && len(b.channels) == 0:
		b.channels = items
	case p == "/conversations":
		for _, cv := range items {
			id := str(cv, "id")
			if _, ok := b.convs[id]; !ok {
				b.convOrder = append(b.convOrder, id)
			}
			b.convs[id] = cv
		}
	case p == anomaliesPath:
		bk, _ := data["buckets"].(map[string]any)
		if ao, ok := bk["automation_only"].(map[string]any); ok {
			b.sawReport = true
			for _, it := range objects(asArray(ao["items"])) {
				b.automation[str(it, "conversation_id")] = true
			}
		}
	case p == "/chatapp/contacts/lookup":
		b.lookups[str(data, "id")] = data
	case strings.HasPrefix(p, "/attachments/"):
		b.files[str(data, "media_id")] = data
	default:
		if m := messagesPathRE.FindStringSubmatch(p); m != nil {
			if b.msgs[m[1]] == nil {
				b.msgs[m[1]] = map[string]map[string]any{}
			}
			for _, msg := range items {
				b.msgs[m[1]][str(msg, "message_id")] = msg
			}
		}
	}
}

func (b *seedBuilder) build() (*fake.Seed, []string, error) {
	var notes, standIns []string
	co := fake.CompanySeed{}
	accounts := map[string]bool{}
	for _, ch := range b.channels {
		co.Channels = append(co.Channels, fake.ChannelAccount{ID: str(ch, "id"), Channel: convo.Channel(str(ch, "channel")),
			DisplayName: str(ch, "display_name"), ProviderIdentifier: str(ch, "provider_identifier")})
		accounts[str(ch, "id")] = true
	}
	contacts := map[string]bool{}
	for _, id := range b.convOrder {
		cv := b.convs[id]
		acc := str(cv, "channel_account_id")
		if !accounts[acc] {
			switch ch := convo.Channel(str(cv, "channel")); {
			case ch == convo.ChannelWebchat:
				co.Channels = append(co.Channels, fake.ChannelAccount{ID: acc, Channel: convo.ChannelWebchat})
			case b.channels == nil: // no channel list recorded: the account is known by its conversations only
				co.Channels = append(co.Channels, fake.ChannelAccount{ID: acc, Channel: ch})
				notes = append(notes, fmt.Sprintf("channel account %s: the channel list was not recorded; its name and provider identifier are made up", acc))
			default:
				notes = append(notes, fmt.Sprintf("conversation %s: its account %s is not in the recorded channel list; left out", id, acc))
				continue
			}
			accounts[acc] = true
		}
		ctID := str(cv, "contact_id")
		if !contacts[ctID] {
			contacts[ctID] = true
			co.Contacts = append(co.Contacts, b.contact(cv))
		}
		conv, unread := b.conversation(cv)
		if unread {
			standIns = append(standIns, id)
		}
		co.Conversations = append(co.Conversations, conv)
	}
	if !b.sawReport {
		notes = append(notes, "no recorded anomaly report with the automation_only bucket: every outbound message is taken as an agent's")
	}
	if len(standIns) > 0 {
		notes = append(notes, fmt.Sprintf("%d conversations' messages were not read (%s): each has stand-in messages at its recorded last_inbound_at and last_message_at",
			len(standIns), listSome(standIns, 3)))
	}
	notes = append(notes, "custom fields and scheduled sequences cannot be read; the contacts have none")
	now := b.now
	return &fake.Seed{Now: &now, Companies: []fake.CompanySeed{co}}, notes, nil
}

func (b *seedBuilder) contact(cv map[string]any) fake.Contact {
	ct := fake.Contact{ID: str(cv, "contact_id"), ChannelAccountID: str(cv, "channel_account_id"), ChannelIdentifier: str(cv, "channel_identifier")}
	if str(cv, "channel") == "chatapp" {
		ct.PhoneNumber = ct.ChannelIdentifier
	}
	if l, ok := b.lookups[ct.ID]; ok {
		ct.PhoneNumber, ct.Name = str(l, "phone_number"), str(l, "name")
		ct.Email, ct.Gender = str(l, "email"), str(l, "gender")
		for _, t := range strings.Split(str(l, "tag_names"), ",") {
			if t = strings.TrimSpace(t); t != "" {
				ct.Tags = append(ct.Tags, t)
			}
		}
	}
	return ct
}

// conversation is the seed of a listed conversation; standIns tells that
// its messages were not read and stand-ins took their place.
func (b *seedBuilder) conversation(cv map[string]any) (conv fake.Conversation, standIns bool) {
	id := str(cv, "id")
	conv = fake.Conversation{ID: id, ContactID: str(cv, "contact_id"), Status: convo.ConversationStatus(str(cv, "status")),
		CreatedAt: stampOf(cv, "created_at")}
	if a, _ := cv["assigned"].(bool); a {
		conv.AssignedTo = "agent"
	}
	if n, err := strconv.Atoi(fmt.Sprint(cv["unread_count"])); err == nil {
		conv.UnreadCount = &n
	}
	msgs := slices.Collect(mapValues(b.msgs[id]))
	slices.SortFunc(msgs, func(x, y map[string]any) int {
		return cmp.Or(msgTime(x).Compare(msgTime(y)), cmp.Compare(str(x, "message_id"), str(y, "message_id")))
	})
	lastInbound := -1
	for i, m := range msgs {
		if str(m, "direction") == "inbound" {
			lastInbound = i
		}
	}
	for i, m := range msgs {
		conv.Messages = append(conv.Messages, b.message(m, b.automation[id] && i > lastInbound))
	}
	if len(msgs) == 0 {
		conv.Messages = b.standIns(cv)
	}
	return conv, len(msgs) == 0 && len(conv.Messages) > 0
}

// listSome lists the first n of ids, and how many more there are.
func listSome(ids []string, n int) string {
	if len(ids) <= n {
		return strings.Join(ids, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(ids[:n], ", "), len(ids)-n)
}

// standIns are the messages of a conversation whose messages were not
// read, made so that the fake lists it as the recording did: an inbound
// text at its last_inbound_at and, when its last_message_at is later, an
// outbound one there (an automation's when the recorded anomaly report
// listed it as automation_only, an agent's otherwise). Its recorded
// unread_count is kept apart from them.
func (b *seedBuilder) standIns(cv map[string]any) []fake.Message {
	id := str(cv, "id")
	var out []fake.Message
	in, last := stampOf(cv, "last_inbound_at"), stampOf(cv, "last_message_at")
	if !in.IsZero() {
		out = append(out, fake.Message{MessageID: standInID(id, "in"), Sender: fake.SenderContact,
			Direction: convo.DirectionInbound, Type: convo.MessageText, Text: "(not recorded)", At: in})
	}
	if !last.IsZero() && last.After(in) {
		sender := fake.SenderAgent
		if b.automation[id] {
			sender = fake.SenderAutomation
		}
		out = append(out, fake.Message{MessageID: standInID(id, "out"), Sender: sender,
			Direction: convo.DirectionOutbound, Type: convo.MessageText, Text: "(not recorded)", Status: convo.StatusSent, At: last})
	}
	return out
}

// standInID is a stable UUID-shaped id for a stand-in message: the same
// recording always makes the same seed.
func standInID(conv, which string) string {
	sum := sha256.Sum256([]byte(conv + "\x00" + which))
	h := hex.EncodeToString(sum[:16])
	return h[0:8] + "-" + h[8:12] + "-4" + h[13:16] + "-8" + h[17:20] + "-" + h[20:32]
}

func mapValues[K comparable, V any](m map[K]V) func(func(V) bool) {
	return func(yield func(V) bool) {
		for _, v := range m {
			if !yield(v) {
				return
			}
		}
	}
}

func msgTime(m map[string]any) time.Time {
	return cmp.Or(stampOf(m, "sent_at"), stampOf(m, "delivered_at"))
}

func (b *seedBuilder) message(m map[string]any, automation bool) fake.Message {
	msg := fake.Message{MessageID: str(m, "message_id"), Direction: convo.Direction(str(m, "direction")),
		Type: convo.MessageType(str(m, "type")), Text: str(m, "text"), At: msgTime(m), FailureReason: str(m, "failure_reason")}
	switch {
	case msg.Type == convo.MessageSystem:
		msg.Sender, msg.Direction = fake.SenderSystem, ""
	case msg.Direction == convo.DirectionInbound:
		msg.Sender = fake.SenderContact
	case automation:
		msg.Sender = fake.SenderAutomation
	default:
		msg.Sender = fake.SenderAgent
	}
	if msg.Direction == convo.DirectionOutbound {
		msg.Status = convo.MessageStatus(str(m, "status"))
	}
	if t := stampOf(m, "delivered_at"); !t.IsZero() {
		msg.DeliveredAt = &t
	}
	if t := stampOf(m, "read_at"); !t.IsZero() {
		msg.ReadAt = &t
	}
	if md, ok := m["media"].(map[string]any); ok {
		media := &fake.Media{MediaStatus: convo.MediaStatus(str(md, "media_status")), MimeType: str(md, "mime_type"),
			Filename: str(md, "filename"), MediaID: str(md, "media_id")}
		if n, err := strconv.ParseInt(fmt.Sprint(md["file_size"]), 10, 64); err == nil {
			media.FileSize = n
		}
		if media.FileSize == 0 && media.MediaStatus == convo.MediaAvailable {
			if f, ok := b.files[media.MediaID]; ok {
				media.FileSize, _ = strconv.ParseInt(fmt.Sprint(f["file_size"]), 10, 64)
			}
		}
		msg.Media = media
	}
	for _, r := range objects(asArray(m["reactions"])) {
		msg.Reactions = append(msg.Reactions, fake.Reaction{Emoji: str(r, "emoji"), Direction: convo.Direction(str(r, "direction")), ReactedAt: stampOf(r, "reacted_at")})
	}
	return msg
}

// WriteSeed writes a seed document as JSON, for cmd/convofake --seed.
func WriteSeed(w io.Writer, seed *fake.Seed) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(seed)
}
