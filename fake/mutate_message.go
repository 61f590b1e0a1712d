package fake

import (
	"fmt"
	"mime"
	"strings"
	"time"

	convo "github.com/convoapi/convo-go"
)

// This file holds the mutations behind seeding a message: its sender,
// times, media and reactions, checked and filled in as [Server.Load] and
// [Company.AddMessage] share them, under the state lock held by the caller.

var mediaTypes = map[string]bool{"image": true, "document": true, "audio": true, "video": true, "sticker": true}

func (s *Server) addMessage(co *company, conversationID string, m Message) (string, error) {
	conv := co.convsByID.get(conversationID)
	if conv == nil {
		return "", fmt.Errorf("unknown conversation %q", conversationID)
	}
	return s.addMessageTo(co, conv, m)
}

// addMessageTo is addMessage to a conversation at hand (addConversation's
// messages, which need no lookup).
func (s *Server) addMessageTo(co *company, conv *conversation, m Message) (string, error) {
	if err := resolveSender(&m); err != nil {
		return "", err
	}
	id := m.MessageID
	var pid parsedID // id parsed once, for the check that it is free and to store it
	if id == "" {
		id = newUUID()
		pid = parseID(id)
	} else if pid = parseID(id); co.objectParsed(pid) != nil {
		return "", fieldErr("id", "id %q is already used", id)
	}
	at, err := s.when(m.At, m.Ago, "at", "ago")
	if err != nil {
		return "", err
	}
	if at.Before(minMessageTime) || at.After(maxMessageTime) {
		return "", fieldErr("at", "%s is out of range: a message's time is between %d and %d",
			at.UTC().Format(time.RFC3339Nano), minMessageTime.Year()+1, maxMessageTime.Year()-1)
	}
	if !s.loadNow.IsZero() && !s.allowFuture && at.After(s.loadNow) {
		return "", fieldErr("at", "%s is after now (%s): a message cannot be sent in the future; set allow_future on the company if it is meant",
			at.UTC().Format(time.RFC3339Nano), s.loadNow.UTC().Format(time.RFC3339Nano))
	}
	msg := &message{conv: conv, at: at.UnixNano(), out: m.Direction == convo.DirectionOutbound}
	msg.setParsedID(pid)
	msg.setType(m.Type)
	msg.sender, _ = codeOf(senders, m.Sender) // resolveSender checked it
	if m.FailureReason != "" {
		msg.extra().failureReason = m.FailureReason
	}
	special := m.Type == "system" || m.Type == "unsupported" // no text or media of their own (docs/behaviour.md, "Messages")
	if special && m.Text != "" {
		return "", fieldErr("text", `a %s message has no text of its own (the API shows null); remove "text"`, m.Type)
	}
	if m.Media != nil && !mediaTypes[string(m.Type)] {
		return "", fieldErr("media", `a %s message carries no media (the API shows null); remove "media", or give a media type: image, document, audio, video or sticker`, m.Type)
	}
	msg.text = m.Text
	if m.Status != "" && m.Direction == convo.DirectionInbound {
		return "", fieldErr("status", `an inbound message has no delivery status (null); remove "status"`)
	}
	if m.Status != "" {
		code, ok := codeOf(messageStatuses, string(m.Status))
		if !ok {
			return "", fieldErr("status", "unknown status %q (want queued, sent, delivered, read or failed)", m.Status)
		}
		msg.status = code
	} else if m.Direction == convo.DirectionOutbound && !special {
		msg.status, _ = codeOf(messageStatuses, "delivered")
	}
	msg.setTimes(m.DeliveredAt, m.ReadAt)
	if mediaTypes[string(m.Type)] {
		md := m.Media
		if md == nil {
			md = &Media{MediaStatus: convo.MediaNoReference}
		}
		built, err := s.buildMedia(co, md)
		if err != nil {
			return "", within("media", err)
		}
		msg.extra().media = built
	}
	for i, r := range m.Reactions {
		rr, err := s.buildReaction(r, at)
		if err != nil {
			return "", within(fmt.Sprintf("reactions[%d]", i), err)
		}
		msg.extra().reactions = append(msg.extra().reactions, rr)
	}
	s.seq++
	conv.insertMessage(msg, s.seq)
	co.addMessageID(msg)
	// The anomaly cache is deliberately left alone (docs/behaviour.md, "Anomaly report").
	return id, nil
}

// resolveSender fills in a seeded message's sender, direction and type where
// they are left out, and refuses a sender and direction that disagree.
func resolveSender(m *Message) error {
	switch {
	case m.Sender == "" && m.Direction == convo.DirectionOutbound:
		m.Sender = SenderAgent
	case m.Sender == "":
		m.Sender = SenderContact
	}
	switch m.Sender {
	case SenderContact, SenderAgent, SenderPhone, SenderAutomation, SenderSystem:
	default:
		return fieldErr("sender", "unknown sender %q (want contact, agent, phone, automation or system)", m.Sender)
	}
	if m.Direction == "" {
		m.Direction = convo.DirectionOutbound
		if m.Sender == SenderContact {
			m.Direction = convo.DirectionInbound
		}
	}
	if m.Direction != convo.DirectionInbound && m.Direction != convo.DirectionOutbound {
		return fieldErr("direction", "unknown direction %q (want inbound or outbound)", m.Direction)
	}
	if (m.Sender == SenderContact) != (m.Direction == convo.DirectionInbound) && m.Sender != SenderSystem {
		return fieldErr("direction", "sender %s cannot send a message %s", m.Sender, m.Direction)
	}
	if m.Type == "" {
		m.Type = "text"
		if m.Media != nil {
			m.Type = convo.MessageType(typeForMIME(m.Media.MimeType))
		}
	}
	if m.Sender == SenderSystem && m.Type == "text" {
		m.Type = "system"
	}
	return nil
}

// setTimes keeps the delivered and read times the seed gives, where they
// differ from the ones the status implies (a second and a minute after the
// message): a state file, which writes every time, costs no more memory
// than the seed it was made from.
func (m *message) setTimes(deliveredAt, readAt *time.Time) {
	if deliveredAt != nil && !sameTime(deliveredAt, m.deliveredAt()) {
		t := *deliveredAt
		m.extra().deliveredAt = &t
	}
	if readAt != nil && !sameTime(readAt, m.readAt()) {
		t := *readAt
		m.extra().readAt = &t
	}
}

func sameTime(a, b *time.Time) bool { return b != nil && a.Equal(*b) }

func typeForMIME(m string) string {
	switch {
	case strings.HasPrefix(m, "image/"):
		return "image"
	case strings.HasPrefix(m, "audio/"):
		return "audio"
	case strings.HasPrefix(m, "video/"):
		return "video"
	}
	return "document"
}

func (s *Server) buildMedia(co *company, md *Media) (*media, error) {
	data := md.Data
	if len(data) == 0 {
		data = []byte(md.Content)
	}
	status := md.MediaStatus
	if status == "" {
		status = convo.MediaAvailable
		if len(data) == 0 && md.FileSize == 0 && md.MimeType == "" {
			status = convo.MediaNoReference
		}
	}
	if md.MimeType != "" && !isMIMEType(md.MimeType) {
		return nil, fieldErr("mime_type", "%q is not a MIME type: want type/subtype, optionally with parameters (e.g. image/jpeg, text/plain; charset=utf-8)", md.MimeType)
	}
	// A message never carries a storage path (docs/behaviour.md,
	// "Messages"), so a file name is a bare name.
	if strings.ContainsAny(md.Filename, `/\`) {
		return nil, fieldErr("filename", "%q is a path; a message never carries a storage path: give a bare file name", md.Filename)
	}
	out := &media{MediaStatus: status, company: co}
	switch status {
	case convo.MediaAvailable:
		id := md.MediaID
		if id == "" {
			id = newUUID()
		} else if co.media[id] != nil {
			return nil, fieldErr("media_id", "media id %q is already used", id)
		}
		out.MediaID = &id
		out.data = data
		if len(out.data) == 0 {
			n := md.FileSize
			if n <= 0 {
				n = 1024
			}
			out.data = filler(md.MimeType, n)
		}
		size := int64(len(out.data))
		out.FileSize = &size
		mt := md.MimeType
		if mt == "" {
			mt = "application/octet-stream"
		}
		out.MimeType = &mt
		fn := md.Filename
		if fn == "" {
			fn = "file" + extensionFor(mt)
		}
		out.Filename = &fn
		co.media[id] = out
	case convo.MediaUnknown:
		out.MimeType, out.Filename = optString(md.MimeType), optString(md.Filename)
		if md.FileSize > 0 {
			size := md.FileSize
			out.FileSize = &size
		}
	case convo.MediaNoReference:
	default:
		return nil, fieldErr("status", "unknown status %q (want available, unknown or no_reference)", status)
	}
	return out, nil
}

// isMIMEType reports whether v reads as a MIME type: type/subtype, both
// tokens, optionally followed by parameters.
func isMIMEType(v string) bool {
	mt, _, err := mime.ParseMediaType(v)
	if err != nil || strings.TrimSpace(v) != v {
		return false
	}
	typ, sub, ok := strings.Cut(mt, "/")
	return ok && typ != "" && sub != "" && !strings.ContainsAny(sub, "/")
}

// extensions are the default file name extensions of common MIME types:
// a fixed table, so that a default filename does not depend on the
// machine's MIME database (mime.ExtensionsByType does).
var extensions = map[string]string{
	"image/jpeg": ".jpg", "image/png": ".png", "image/gif": ".gif", "image/webp": ".webp",
	"audio/ogg": ".ogg", "audio/mpeg": ".mp3", "audio/mp4": ".m4a", "audio/aac": ".aac", "audio/amr": ".amr",
	"video/mp4": ".mp4", "video/3gpp": ".3gp", "video/quicktime": ".mov",
	"application/pdf": ".pdf", "text/plain": ".txt", "application/zip": ".zip",
	"application/msword": ".doc", "application/vnd.ms-excel": ".xls",
	"application/vnd.openxmlformats-officedocument.wordprocessingml.document": ".docx",
	"application/vnd.openxmlformats-officedocument.spreadsheetml.sheet":       ".xlsx",
	"application/octet-stream": ".bin",
}

// extensionFor is the extension of a default filename: from the table, else
// none.
func extensionFor(mimeType string) string {
	mt, _, err := mime.ParseMediaType(mimeType)
	if err != nil {
		return ""
	}
	return extensions[mt]
}

// filler makes n bytes standing for a file of the given type.
func filler(mimeType string, n int64) []byte {
	b := make([]byte, n)
	pattern := "fake " + mimeType + " content\n"
	for i := range b {
		b[i] = pattern[i%len(pattern)]
	}
	return b
}

func (s *Server) buildReaction(r Reaction, msgAt time.Time) (reaction, error) {
	if r.Emoji == "" {
		return reaction{}, fieldErr("emoji", "emoji is empty")
	}
	dir := r.Direction
	if dir == "" {
		dir = convo.DirectionInbound
	}
	if dir != convo.DirectionInbound && dir != convo.DirectionOutbound {
		return reaction{}, fieldErr("direction", "unknown direction %q (want inbound or outbound)", dir)
	}
	at := r.ReactedAt
	if r.Ago != "" || !at.IsZero() {
		var err error
		if at, err = s.when(r.ReactedAt, r.Ago, "at", "ago"); err != nil {
			return reaction{}, err
		}
	} else {
		at = msgAt.Add(time.Minute)
	}
	return reaction{Emoji: r.Emoji, Direction: dir, ReactedAt: stamp(at)}, nil
}
