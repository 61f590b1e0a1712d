package fake

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"time"

	convo "github.com/convoapi/convo-go"
)

// Seed is a seed document: the whole state of a server in JSON, for
// cmd/convofake and for tests that prefer data to code. Its fields are
// documented in SEED.md; testdata/sample-seed.json is an example.
type Seed struct {
	// Now, when set, is the instant a manual clock is set to; relative
	// times ("ago") count back from it. A server built with WithSeed and no
	// WithClock then runs on a manual clock frozen at it. On a server with a
	// real clock, a seed with now does not load ([Server.Load]). Without
	// now, relative times count back from the clock's reading.
	Now *time.Time `json:"now,omitempty"`
	// Companies are the tenants. The first one is the default company:
	// without an api_key it keeps the server's key.
	Companies []CompanySeed `json:"companies"`
}

// CompanySeed is one company of a [Seed].
type CompanySeed struct {
	APIKey        string             `json:"api_key,omitempty"`       // required except on the first company
	Channels      []ChannelSeed      `json:"channels,omitempty"`      // accounts and webchat widgets
	Contacts      []ContactSeed      `json:"contacts,omitempty"`      // contacts, each on one account
	Conversations []ConversationSeed `json:"conversations,omitempty"` // conversations with their messages
}

// ChannelSeed is a channel account (chatapp, botapp; GET /channels) or, with
// channel "webchat", a webchat widget.
type ChannelSeed struct {
	Ref                string        `json:"ref,omitempty"`                 // local name for contacts[].channel
	ID                 string        `json:"id,omitempty"`                  // default: a new UUID
	Channel            convo.Channel `json:"channel"`                       // chatapp, botapp or webchat
	DisplayName        string        `json:"display_name,omitempty"`        // human label
	ProviderIdentifier string        `json:"provider_identifier,omitempty"` // chatapp: the phone_number_id
}

// ContactSeed is a contact on one account.
type ContactSeed struct {
	Ref               string            `json:"ref,omitempty"`                // local name for conversations[].contact
	ID                string            `json:"id,omitempty"`                 // default: a new UUID
	Channel           string            `json:"channel"`                      // ref or id of the account or widget
	Phone             string            `json:"phone,omitempty"`              // normalized (digits only); required on chatapp
	ChannelIdentifier string            `json:"channel_identifier,omitempty"` // native address; default from the phone
	Name              string            `json:"name,omitempty"`               // default the phone or identifier
	Email             string            `json:"email,omitempty"`              // absent: null
	Gender            string            `json:"gender,omitempty"`             // absent: null
	Tags              []string          `json:"tags,omitempty"`               // tag names
	CustomFields      map[string]string `json:"custom_fields,omitempty"`      // custom fields
	Sequence          string            `json:"sequence,omitempty"`           // name of a scheduled sequence
	CreatedAt         string            `json:"created_at,omitempty"`         // RFC 3339
	CreatedAgo        string            `json:"created_ago,omitempty"`        // or a duration before now
}

// ConversationSeed is a conversation of a contact, with its messages.
type ConversationSeed struct {
	Ref         string                   `json:"ref,omitempty"`          // for readability only
	ID          string                   `json:"id,omitempty"`           // default: a new UUID
	Contact     string                   `json:"contact"`                // ref or id of the contact
	Status      convo.ConversationStatus `json:"status,omitempty"`       // open (default), resolved, archived
	AssignedTo  string                   `json:"assigned_to,omitempty"`  // agent; absent: unassigned
	UnreadCount *int                     `json:"unread_count,omitempty"` // overrides the derived count
	CreatedAt   string                   `json:"created_at,omitempty"`   // RFC 3339
	CreatedAgo  string                   `json:"created_ago,omitempty"`  // or a duration before now
	Messages    []MessageSeed            `json:"messages,omitempty"`     // in any order
}

// MessageSeed is a message. Its time is at (RFC 3339) or ago (a duration
// before the clock's now: "90m", "3h", "2d4h"); neither: now.
type MessageSeed struct {
	ID            string              `json:"id,omitempty"`             // message_id; default a new UUID
	Direction     convo.Direction     `json:"direction,omitempty"`      // inbound, outbound; default from sender
	Sender        Sender              `json:"sender,omitempty"`         // contact, agent, phone, automation, system
	Type          convo.MessageType   `json:"type,omitempty"`           // default text or from the media
	Text          string              `json:"text,omitempty"`           // text or caption
	Status        convo.MessageStatus `json:"status,omitempty"`         // default null in, delivered out
	At            string              `json:"at,omitempty"`             // RFC 3339
	Ago           string              `json:"ago,omitempty"`            // or a duration before now
	FailureReason string              `json:"failure_reason,omitempty"` // failure_reason
	Media         *MediaSeed          `json:"media,omitempty"`          // media of a media type
	Reactions     []ReactionSeed      `json:"reactions,omitempty"`      // reactions to this message
}

// MediaSeed is the media of a message. The content of an available file is
// data_base64, or content (text), or size bytes of filler.
type MediaSeed struct {
	Status     convo.MediaStatus `json:"status,omitempty"`      // available, unknown, no_reference
	MimeType   string            `json:"mime_type,omitempty"`   // MIME type
	Filename   string            `json:"filename,omitempty"`    // file name
	Size       int64             `json:"size,omitempty"`        // filler size, or file_size of unknown media
	DataBase64 string            `json:"data_base64,omitempty"` // the file's bytes
	Content    string            `json:"content,omitempty"`     // the file's bytes as text
}

// ReactionSeed is a reaction.
type ReactionSeed struct {
	Emoji     string          `json:"emoji"`               // the emoji
	Direction convo.Direction `json:"direction,omitempty"` // inbound (default) or outbound
	At        string          `json:"at,omitempty"`        // RFC 3339
	Ago       string          `json:"ago,omitempty"`       // or a duration before now
}

// ErrRealClock is the error of [Server.Load] for a seed with a now on a
// server whose clock is real: a real clock cannot be set. In Go, give the
// server a manual clock ([WithClock] with [NewManualClock], or [WithSeed]
// without WithClock). Its text names no Go call, so that a tool may show it
// to any user.
var ErrRealClock = errors.New(`seed: now: the server's clock is real and cannot be set; remove "now" from the seed, or start the server on a manual clock`)

// LoadSeed reads a seed document and checks it (by loading it into a
// scratch server). Errors name the place: a line and column for JSON
// syntax; a JSON path down to the field for content, wrong types and
// unknown fields, e.g.
// "seed: companies[0].conversations[2].messages[1].sender: unknown sender \"martian\"".
func LoadSeed(r io.Reader) (*Seed, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("seed: %w", err)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var seed Seed
	if err := dec.Decode(&seed); err != nil {
		var syn *json.SyntaxError
		var typ *json.UnmarshalTypeError
		var tpe *time.ParseError
		switch {
		case errors.As(err, &tpe): // the one time.Time of the format
			return nil, fmt.Errorf("seed: now: %q is not an RFC 3339 date-time (e.g. 2026-11-22T10:00:00Z)", tpe.Value)
		case errors.As(err, &syn):
			line, col := position(data, syn.Offset)
			return nil, fmt.Errorf("seed: line %d, column %d: %v", line, col, syn)
		case errors.As(err, &typ):
			line, col := position(data, typ.Offset)
			field := jsonPathAt(data, typ.Offset)
			if field == "" {
				field = typ.Field
			}
			want := typ.Type.String()
			if typ.Type.Kind() == reflect.String { // convo.Channel and the like are strings in JSON
				want = "string"
			}
			return nil, fmt.Errorf("seed: %s (line %d, column %d): want %s, got JSON %s", field, line, col, want, typ.Value)
		case strings.HasPrefix(err.Error(), "json: unknown field "):
			if p := unknownFieldPath(data); p != "" {
				name := p[strings.LastIndexAny(p, ".]")+1:]
				return nil, fmt.Errorf("seed: %s: unknown field %q (SEED.md lists the fields)", p, name)
			}
		}
		return nil, fmt.Errorf("seed: %w", err)
	}
	if dec.More() {
		return nil, errors.New("seed: more than one JSON value")
	}
	// A manual scratch clock, so that a seed with now loads as it would on
	// the server it is meant for.
	scratch, err := NewHandler(WithClock(NewManualClock(NewRealClock().Now())))
	if err != nil {
		return nil, err
	}
	if err := scratch.Load(&seed); err != nil {
		return nil, err
	}
	return &seed, nil
}

// atPath names the JSON path of a seeding error: path.field for an error
// about one field (companies[0].conversations[0].messages[0].sender: ...),
// else path itself.
func atPath(path string, err error) error {
	var fe *fieldError
	if errors.As(err, &fe) {
		return fmt.Errorf("%s.%s: %s", path, fe.field, fe.msg)
	}
	return fmt.Errorf("%s: %w", path, err)
}

// timeField names the field of a time given as at or ago: the absolute
// field when it was given, else the relative one.
func timeField(at, absolute, relative string) string {
	if at != "" {
		return absolute
	}
	return relative
}

// unknownFieldPath returns the JSON path of the first field of data (in
// sorted order of keys) that Seed does not have, e.g.
// companies[0].contacts[1].colour; "" when there is none.
func unknownFieldPath(data []byte) string {
	var v any
	if json.Unmarshal(data, &v) != nil {
		return ""
	}
	return unknownIn(v, reflect.TypeOf(Seed{}), "")
}

func unknownIn(v any, t reflect.Type, path string) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch x := v.(type) {
	case map[string]any:
		if t.Kind() != reflect.Struct {
			return ""
		}
		fields := map[string]reflect.Type{}
		for i := 0; i < t.NumField(); i++ {
			name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
			fields[name] = t.Field(i).Type
		}
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			p := k
			if path != "" {
				p = path + "." + k
			}
			ft, ok := fields[k]
			if !ok {
				return p
			}
			if found := unknownIn(x[k], ft, p); found != "" {
				return found
			}
		}
	case []any:
		if t.Kind() != reflect.Slice {
			return ""
		}
		for i, e := range x {
			if found := unknownIn(e, t.Elem(), fmt.Sprintf("%s[%d]", path, i)); found != "" {
				return found
			}
		}
	}
	return ""
}

// jsonPathAt returns the JSON path (companies[0].channels[1].channel) of
// the value of data that ends at offset (for a scalar) or opens there (for an
// object or array), as json.UnmarshalTypeError.Offset reports it; "" when
// there is none.
func jsonPathAt(data []byte, offset int64) string {
	type frame struct {
		array bool
		key   string // objects: the current key
		n     int    // arrays: the index of the current value
	}
	var stack []frame
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	expectKey := false
	for {
		tok, err := dec.Token()
		if err != nil {
			return ""
		}
		if d, ok := tok.(json.Delim); ok && (d == '}' || d == ']') {
			stack = stack[:len(stack)-1]
			expectKey = len(stack) > 0 && !stack[len(stack)-1].array
			continue
		}
		if expectKey {
			stack[len(stack)-1].key, expectKey = tok.(string), false
			continue
		}
		// tok starts a value: its path is the stack's.
		if len(stack) > 0 {
			if top := &stack[len(stack)-1]; top.array {
				top.n++
			} else {
				expectKey = true
			}
		}
		var b strings.Builder
		for i, f := range stack {
			switch {
			case f.array:
				fmt.Fprintf(&b, "[%d]", f.n)
			case i > 0:
				b.WriteString("." + f.key)
			default:
				b.WriteString(f.key)
			}
		}
		if dec.InputOffset() >= offset {
			return b.String()
		}
		if d, ok := tok.(json.Delim); ok {
			stack = append(stack, frame{array: d == '[', n: -1})
			expectKey = d == '{'
		}
	}
}

func position(data []byte, offset int64) (line, col int) {
	line, col = 1, 1
	for i := int64(0); i < offset && i < int64(len(data)); i++ {
		if data[i] == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
	}
	return line, col
}

// parseAgo reads a duration before now: Go durations ("90m", "3h30m") plus a
// leading days part ("2d", "2d4h").
func parseAgo(s string) (time.Duration, error) {
	var days time.Duration
	if i := strings.IndexByte(s, 'd'); i > 0 {
		n, err := strconv.Atoi(s[:i])
		if err != nil {
			return 0, fmt.Errorf("bad duration %q", s)
		}
		days, s = time.Duration(n)*24*time.Hour, s[i+1:]
		if s == "" {
			return days, nil
		}
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, fmt.Errorf("bad duration %q (want e.g. 90m, 3h, 2d4h)", s)
	}
	return days + d, nil
}

// seedTime resolves at/ago against now; zero when both are empty.
func seedTime(at, ago string, now time.Time) (time.Time, error) {
	switch {
	case at != "" && ago != "":
		return time.Time{}, errors.New("give at or ago, not both")
	case at != "":
		t, err := time.Parse(time.RFC3339Nano, at)
		if err != nil {
			return time.Time{}, fmt.Errorf("%q is not an RFC 3339 date-time", at)
		}
		return t, nil
	case ago != "":
		d, err := parseAgo(ago)
		if err != nil {
			return time.Time{}, err
		}
		return now.Add(-d), nil
	}
	return time.Time{}, nil
}

// Load replaces the server's state with seed (as [Server.Reset] then the
// seed's content). The default company keeps its id, and its key unless the
// seed's first company names one. On error the previous state (and clock)
// is kept; the error names the JSON path of the faulty field, e.g.
// companies[0].conversations[0].messages[0].sender. Journal, fault rules
// and rate-limit buckets are kept.
//
// A seed's now sets a manual clock (after the seed loaded). A real clock
// cannot be set: a seed with now on a server with a real clock is an error,
// and nothing changes.
func (s *Server) Load(seed *Seed) (err error) {
	if seed == nil {
		return errors.New("seed: nil")
	}
	now := s.clock.Now()
	if seed.Now != nil {
		if !s.clock.Manual() {
			return ErrRealClock
		}
		// Defaults ("now") read the clock while loading: set it first, and
		// put it back if the seed does not load.
		prev := now
		now = *seed.Now
		s.clock.Set(now)
		defer func() {
			if err != nil {
				s.clock.Set(prev)
			}
		}()
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	saved := *s.stateSnapshot()
	s.resetLocked()
	if err := s.loadLocked(seed, now); err != nil {
		s.restore(saved)
		return err
	}
	return nil
}

type stateFields struct {
	companies []*company
	byID      map[string]*company
	defaultCo *company
	files     map[string]*fileGrant
	index     objectIndex
	seq       uint64
}

func (s *Server) stateSnapshot() *stateFields {
	return &stateFields{s.companies, s.byID, s.defaultCo, s.files, s.index, s.seq}
}

func (s *Server) restore(f stateFields) {
	s.companies, s.byID, s.defaultCo, s.files, s.index, s.seq = f.companies, f.byID, f.defaultCo, f.files, f.index, f.seq
}

// seedChannels adds a seed company's channel accounts, noting each ref in refs.
func (s *Server) seedChannels(co *company, path string, chs []ChannelSeed, refs map[string]string) error {
	for j, ch := range chs {
		id, err := s.addAccount(co, ChannelAccount{ID: ch.ID, Channel: ch.Channel, DisplayName: ch.DisplayName, ProviderIdentifier: ch.ProviderIdentifier}, ch.Channel == convo.ChannelWebchat)
		if err != nil {
			return atPath(fmt.Sprintf("%s.channels[%d]", path, j), err)
		}
		if ch.Ref != "" {
			refs["channel:"+ch.Ref] = id
		}
	}
	return nil
}

// seedCompany is the company the i-th company of a seed fills: the default
// company first (taking the seed's key when it gives one), then new ones.
func (s *Server) seedCompany(i int, apiKey string) (*company, error) {
	if i > 0 {
		return s.addCompanyLocked(apiKey)
	}
	co := s.defaultCo
	if apiKey != "" {
		co.apiKey = apiKey
		co.keyHash = newCompany(apiKey).keyHash
	}
	return co, nil
}

func (s *Server) loadLocked(seed *Seed, now time.Time) error {
	for i, cs := range seed.Companies {
		path := fmt.Sprintf("seed: companies[%d]", i)
		co, err := s.seedCompany(i, cs.APIKey)
		if err != nil {
			return fmt.Errorf("%s.api_key: %w", path, err)
		}
		refs := map[string]string{}
		ref := func(kind, r string) (string, error) {
			if id, ok := refs[kind+":"+r]; ok {
				return id, nil
			}
			if _, ok := s.index[r]; ok && r != "" {
				return r, nil
			}
			return "", fmt.Errorf("unknown %s %q", kind, r)
		}
		if err := s.seedChannels(co, path, cs.Channels, refs); err != nil {
			return err
		}
		for j, ct := range cs.Contacts {
			p := fmt.Sprintf("%s.contacts[%d]", path, j)
			acc, err := ref("channel", ct.Channel)
			if err != nil {
				return fmt.Errorf("%s.channel: %w", p, err)
			}
			created, err := seedTime(ct.CreatedAt, ct.CreatedAgo, now)
			if err != nil {
				return atPath(p, within(timeField(ct.CreatedAt, "created_at", "created_ago"), err))
			}
			id, err := s.addContact(co, Contact{
				ID: ct.ID, Account: acc, Phone: ct.Phone, ChannelIdentifier: ct.ChannelIdentifier, Name: ct.Name,
				Email: ct.Email, Gender: ct.Gender, Tags: ct.Tags, CustomFields: ct.CustomFields, Sequence: ct.Sequence, CreatedAt: created,
			})
			if err != nil {
				return atPath(p, err)
			}
			if ct.Ref != "" {
				refs["contact:"+ct.Ref] = id
			}
		}
		for j, cv := range cs.Conversations {
			p := fmt.Sprintf("%s.conversations[%d]", path, j)
			ctID, err := ref("contact", cv.Contact)
			if err != nil {
				return fmt.Errorf("%s.contact: %w", p, err)
			}
			created, err := seedTime(cv.CreatedAt, cv.CreatedAgo, now)
			if err != nil {
				return atPath(p, within(timeField(cv.CreatedAt, "created_at", "created_ago"), err))
			}
			convID, err := s.addConversation(co, Conversation{ID: cv.ID, Contact: ctID, Status: cv.Status, AssignedTo: cv.AssignedTo, CreatedAt: created, UnreadCount: cv.UnreadCount})
			if err != nil {
				return atPath(p, err)
			}
			for k, ms := range cv.Messages {
				mp := fmt.Sprintf("%s.messages[%d]", p, k)
				m, err := ms.message(now)
				if err != nil {
					return atPath(mp, err)
				}
				if _, err := s.addMessage(co, convID, m); err != nil {
					return atPath(mp, err)
				}
			}
		}
	}
	return nil
}

// message converts a MessageSeed; errors start with the field name.
func (ms MessageSeed) message(now time.Time) (Message, error) {
	at, err := seedTime(ms.At, ms.Ago, now)
	if err != nil {
		return Message{}, within(timeField(ms.At, "at", "ago"), err)
	}
	m := Message{ID: ms.ID, Direction: ms.Direction, Sender: Sender(ms.Sender), Type: ms.Type, Text: ms.Text, Status: ms.Status, At: at, FailureReason: ms.FailureReason}
	if at.IsZero() {
		m.At = now
	}
	if md := ms.Media; md != nil {
		m.Media = &Media{Status: md.Status, MimeType: md.MimeType, Filename: md.Filename, Size: md.Size}
		switch {
		case md.DataBase64 != "":
			if m.Media.Data, err = base64.StdEncoding.DecodeString(md.DataBase64); err != nil {
				return Message{}, fieldErr("media.data_base64", "not base64")
			}
		case md.Content != "":
			m.Media.Data = []byte(md.Content)
		}
	}
	for i, r := range ms.Reactions {
		rat, err := seedTime(r.At, r.Ago, now)
		if err != nil {
			return Message{}, within(fmt.Sprintf("reactions[%d].%s", i, timeField(r.At, "at", "ago")), err)
		}
		m.Reactions = append(m.Reactions, Reaction{Emoji: r.Emoji, Direction: r.Direction, At: rat})
	}
	return m, nil
}
