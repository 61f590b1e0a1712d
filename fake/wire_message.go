package fake

import (
	"encoding/json"
	"strconv"
	"strings"
	"time"

	convo "github.com/convoapi/convo-go"
)

// The message's wire form, written by hand: the same bytes as json.Marshal
// of the message (TestAppendMessageIsJSONMarshal holds them equal), about
// five times faster, since every stored message is encoded when it is
// added or changed.

// appendMessage appends the JSON of m, as json.Marshal writes it.
func appendMessage(b []byte, m *message) []byte {
	b = append(b, `{"message_id":`...)
	b = appendString(b, m.MessageID)
	b = append(b, `,"direction":`...)
	b = appendString(b, string(m.Direction))
	b = append(b, `,"type":`...)
	b = appendString(b, string(m.Type))
	b = append(b, `,"status":`...)
	b = appendStringPtr(b, m.Status)
	b = append(b, `,"text":`...)
	b = appendStringPtr(b, m.Text)
	b = append(b, `,"media":`...)
	b = appendMedia(b, m.Media)
	b = append(b, `,"reactions":`...)
	b = appendReactions(b, m.Reactions)
	b = append(b, `,"sent_at":`...)
	b = appendStampPtr(b, m.SentAt)
	b = append(b, `,"delivered_at":`...)
	b = appendStampPtr(b, m.DeliveredAt)
	b = append(b, `,"read_at":`...)
	b = appendStampPtr(b, m.ReadAt)
	b = append(b, `,"failure_reason":`...)
	b = appendStringPtr(b, m.FailureReason)
	b = append(b, `,"raw":`...)
	b = appendRaw(b, m.Raw.m)
	return append(b, '}')
}

func appendMedia(b []byte, md *media) []byte {
	if md == nil {
		return append(b, "null"...)
	}
	b = append(b, `{"media_id":`...)
	b = appendStringPtr(b, md.MediaID)
	b = append(b, `,"media_status":`...)
	b = appendString(b, string(md.MediaStatus))
	b = append(b, `,"mime_type":`...)
	b = appendStringPtr(b, md.MimeType)
	b = append(b, `,"file_size":`...)
	b = appendInt64Ptr(b, md.FileSize)
	b = append(b, `,"filename":`...)
	b = appendStringPtr(b, md.Filename)
	return append(b, '}')
}

func appendReactions(b []byte, rs []reaction) []byte {
	if rs == nil {
		return append(b, "null"...)
	}
	b = append(b, '[')
	for i := range rs {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"emoji":`...)
		b = appendString(b, rs[i].Emoji)
		b = append(b, `,"direction":`...)
		b = appendString(b, string(rs[i].Direction))
		b = append(b, `,"reacted_at":`...)
		b = appendStamp(b, rs[i].ReactedAt)
		b = append(b, '}')
	}
	return append(b, ']')
}

// appendRaw appends the raw object of m, as raw.MarshalJSON writes it.
func appendRaw(b []byte, m *message) []byte {
	if m == nil || m.Type == convo.MessageSystem || m.Type == convo.MessageUnsupported {
		return append(b, "null"...)
	}
	b = append(b, `{"content":{`...)
	if m.Text != nil {
		b = append(b, `"body":`...)
		b = appendString(b, *m.Text)
		b = append(b, ',')
	}
	if md := m.Media; md != nil && md.MediaID != nil {
		if md.FileSize != nil {
			b = append(b, `"file_size":`...)
			b = strconv.AppendInt(b, *md.FileSize, 10)
			b = append(b, ',')
		}
		if md.MimeType != nil {
			b = append(b, `"mime_type":`...)
			b = appendString(b, *md.MimeType)
			b = append(b, ',')
		}
	}
	b = append(b, `"type":`...)
	b = appendString(b, string(m.Type))
	b = append(b, `},"origin":`...)
	b = appendString(b, string(m.sender))
	b = append(b, `,"provider_message_id":`...)
	b = appendString(b, "pmid."+strings.ReplaceAll(m.MessageID, "-", ""))
	return append(b, '}')
}

func appendStringPtr(b []byte, s *string) []byte {
	if s == nil {
		return append(b, "null"...)
	}
	return appendString(b, *s)
}

func appendInt64Ptr(b []byte, n *int64) []byte {
	if n == nil {
		return append(b, "null"...)
	}
	return strconv.AppendInt(b, *n, 10)
}

func appendStampPtr(b []byte, t *stamp) []byte {
	if t == nil {
		return append(b, "null"...)
	}
	return appendStamp(b, *t)
}

func appendStamp(b []byte, t stamp) []byte {
	b = append(b, '"')
	b = time.Time(t).UTC().AppendFormat(b, timestampLayout)
	return append(b, '"')
}

// appendString appends s as a JSON string, as json.Marshal writes it:
// printable ASCII without '"', '\\', '<', '>' or '&' as is, anything else
// through encoding/json itself.
func appendString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			q, _ := json.Marshal(s)
			return append(b, q...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}
