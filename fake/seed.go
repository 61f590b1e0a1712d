package fake

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"time"

	convo "github.com/convoapi/convo-go"
	"github.com/convoapi/convo-go/internal/strictjson"
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
	// ID is the company's id on every company but the first (the default
	// company keeps its own: loading ignores the first company's ID; start
	// a server with [WithDefaultCompanyID] to give it one); default a new
	// UUID. An export carries it, so that ?company= filters still name the
	// company after a reload.
	ID            string           `json:"id,omitempty"`
	APIKey        string           `json:"api_key,omitempty"`       // required except on the first company
	Channels      []ChannelAccount `json:"channels,omitempty"`      // accounts and webchat widgets
	Contacts      []Contact        `json:"contacts,omitempty"`      // contacts, each on one account
	Conversations []Conversation   `json:"conversations,omitempty"` // conversations with their messages
	// AllowFuture lets the company's messages be dated after now. A seed
	// refuses them otherwise (a year off by one in a fixture); an export
	// sets it when the clock was moved back before some of them, so that it
	// loads back.
	AllowFuture bool `json:"allow_future,omitempty"`
}

// ErrRealClock is the error of [Server.Load] for a seed with a now on a
// server whose clock is real: a real clock cannot be set. In Go, give the
// server a manual clock ([WithClock] with [NewManualClock], or [WithSeed]
// without WithClock). Its text names no Go call, so that a tool may show it
// to any user.
var ErrRealClock = errors.New(`seed: now: the server's clock is real and cannot be set; remove "now" from the seed, or start the server on a manual clock`)

// LoadSeed reads a seed document ([DecodeSeed]) and checks its content
// (by loading it into a scratch server). Errors name the place: a line and
// column for JSON syntax; a JSON path down to the field for content, wrong
// types and unknown fields, e.g.
// "seed: companies[0].conversations[2].messages[1].sender: unknown sender \"martian\"".
func LoadSeed(r io.Reader) (*Seed, error) {
	seed, err := DecodeSeed(r)
	if err != nil {
		return nil, err
	}
	// A manual scratch clock, so that a seed with now loads as it would on
	// the server it is meant for.
	scratch, err := NewHandler(WithClock(NewManualClock(NewRealClock().Now())))
	if err != nil {
		return nil, err
	}
	if err := scratch.load(seed, nil); err != nil { // a scratch server is never reset: no JSON to keep
		return nil, err
	}
	return seed, nil
}

// DecodeSeed reads a seed document as strictly as [LoadSeed], without
// loading it anywhere: for a tool that loads it next ([Server.Load],
// [WithSeed]), which checks the content and names the place of what is
// wrong. The document must be one JSON object: null, an array or a scalar
// is refused, as is a second value after it. As in the API's bodies, a key
// given twice in one object is refused, and so is a key spelled in
// another case than its field's ("API_KEY" for "api_key"), which
// encoding/json alone would take. Errors name the place: a line
// and column for JSON syntax; a JSON path for wrong types and unknown
// fields. It reads r to its end; bound r (io.LimitReader) to bound the
// memory. On Go 1.27 a valid document is decoded in one pass by
// encoding/json/v2, which keeps these rules itself; on Go 1.26 by
// encoding/json, then a pass over the bytes for keys given twice or in
// another case. Only a document with a fault is read again, to name the
// place.
func DecodeSeed(r io.Reader) (*Seed, error) {
	data, err := readAll(r)
	if err != nil {
		return nil, fmt.Errorf("seed: %w", err)
	}
	return DecodeSeedBytes(data)
}

// DecodeSeedBytes is [DecodeSeed] of a document in memory: it reads data
// where it is, without a copy, and keeps no reference to it (the Seed's
// strings are its own), so that a caller may reuse or unmap data after.
func DecodeSeedBytes(data []byte) (*Seed, error) {
	if what := topKind(data); what != "" {
		return nil, fmt.Errorf("seed: the document %s; want a JSON object ({\"companies\": [...]}, fake/SEED.md)", what)
	}
	seed := new(Seed)
	err := strictjson.Unmarshal(data, seed, seedSlices...)
	var rule *strictjson.Error
	switch {
	case err == nil:
		if err := zeroTime(data); err != nil {
			return nil, err
		}
		return seed, nil
	case errors.As(err, &rule):
		return nil, fmt.Errorf("seed: %w", err)
	case errors.Is(err, strictjson.ErrMoreThanOneValue):
		return nil, errors.New("seed: more than one JSON value")
	}
	return nil, decodeError(data, err)
}

// seedSlices are the slice types of a Seed that a big document fills:
// they are decoded into slices of their length (strictjson.ExactSlices).
var seedSlices = []strictjson.Slices{
	strictjson.ExactSlices[CompanySeed](),
	strictjson.ExactSlices[ChannelAccount](),
	strictjson.ExactSlices[Contact](),
	strictjson.ExactSlices[Conversation](),
	strictjson.ExactSlices[Message](),
	strictjson.ExactSlices[Reaction](),
}

// readAll reads r to its end, into a buffer of the size r tells when it
// tells one (Len, as a bytes.Reader; Size, as an io.SectionReader; Stat,
// as an *os.File): a large document is then not copied as the buffer
// grows.
func readAll(r io.Reader) ([]byte, error) {
	size := int64(-1)
	switch r := r.(type) {
	case interface{ Len() int }:
		size = int64(r.Len())
	case interface{ Size() int64 }:
		size = r.Size()
	case interface{ Stat() (fs.FileInfo, error) }:
		if fi, err := r.Stat(); err == nil && fi.Mode().IsRegular() {
			size = fi.Size()
		}
	}
	if size < 0 || size > 1<<30 {
		return io.ReadAll(r)
	}
	// MinRead more than told: the read that finds the end then has room,
	// and the buffer is not grown (copied) for it.
	b := bytes.NewBuffer(make([]byte, 0, size+bytes.MinRead))
	_, err := b.ReadFrom(r)
	return b.Bytes(), err
}

// topKind says what a document is when it cannot be a seed, by its first
// characters ("is null", "is an array", "is not JSON: ..."); "" for what
// may be an object.
func topKind(data []byte) string {
	if bytes.HasPrefix(data, []byte("\xEF\xBB\xBF")) {
		return "starts with a UTF-8 byte-order mark (EF BB BF), which JSON does not allow: save it without one"
	}
	data = bytes.TrimLeft(data, " \t\r\n")
	if len(data) == 0 {
		return "is empty"
	}
	switch c := data[0]; {
	case c == '{':
		return ""
	case bytes.HasPrefix(data, []byte("null")):
		return "is null"
	case c == '[':
		return "is an array"
	case c == '"':
		return "is a string"
	case bytes.HasPrefix(data, []byte("true")), bytes.HasPrefix(data, []byte("false")):
		return "is a boolean"
	case c == '-', c >= '0' && c <= '9':
		return "is a number"
	default:
		return fmt.Sprintf("is not JSON: it starts with the byte 0x%02X", c)
	}
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
func (s *Server) Load(seed *Seed) error {
	if seed == nil {
		return errors.New("seed: nil")
	}
	doc := encodeSeed(seed)
	return s.load(seed, &doc)
}

// load is Load of seed, which doc holds in JSON (what the companies are
// reset to; nil: they are reset to no data).
func (s *Server) load(seed *Seed, doc *seedDoc) (err error) {
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
	// One now for the whole seed: its relative times and defaults agree.
	s.loadNow = now
	defer func() { s.loadNow = time.Time{} }()
	if err := s.loadLocked(seed, doc); err != nil {
		s.restore(saved)
		return err
	}
	return nil
}

type stateFields struct {
	companies []*company
	byID      map[string]*company
	defaultCo *company
	files     *fileGrants
	seq       uint64
}

func (s *Server) stateSnapshot() *stateFields {
	return &stateFields{s.companies, s.byID, s.defaultCo, s.files, s.seq}
}

func (s *Server) restore(f stateFields) {
	s.companies, s.byID, s.defaultCo, s.files, s.seq = f.companies, f.byID, f.defaultCo, f.files, f.seq
}

// seedCompany is the company the i-th company of a seed fills: the default
// company first (taking the seed's key when it gives one), then new ones.
func (s *Server) seedCompany(i int, apiKey, id string) (*company, error) {
	if i > 0 {
		return s.addCompanyLocked(apiKey, id)
	}
	co := s.defaultCo
	if apiKey != "" {
		co.apiKey = apiKey
		co.keyHash = newCompany(apiKey).keyHash
	}
	return co, nil
}

// seedKeyCheck checks the i-th company's key and id against the seed's
// earlier companies, so that the error names them by their place: every
// company but the first needs a key (the first keeps defaultKey without
// one), and no two share a key or an id.
func seedKeyCheck(seed *Seed, i int, defaultKey string) error {
	cs := seed.Companies[i]
	if i > 0 && cs.APIKey == "" {
		return errors.New("api_key: missing; every company but the first needs an API key of its own")
	}
	for j, prev := range seed.Companies[:i] {
		if j == 0 && prev.APIKey == "" {
			prev.APIKey = defaultKey
		}
		switch {
		case cs.APIKey != "" && prev.APIKey == cs.APIKey:
			return fmt.Errorf("api_key: the same API key as companies[%d]; every company needs an API key of its own", j)
		case i > 0 && j > 0 && cs.ID != "" && prev.ID == cs.ID:
			return fmt.Errorf("id: the same id as companies[%d]", j)
		}
	}
	return nil
}

// companyError places an error of adding a company under path: at its id
// or its api_key.
func companyError(path string, err error) error {
	if errors.Is(err, ErrCompanyIDInUse) {
		return fmt.Errorf("%s.id: %w", path, err)
	}
	return fmt.Errorf("%s.api_key: %w", path, err)
}

// seedRefs are the refs of one seed company: kind:ref -> id.
type seedRefs map[string]string

// resolve returns the id a ref names: a ref of the seed company, else the
// id of an object of the company co. Its error is about the field kind.
func (refs seedRefs) resolve(co *company, kind, ref string) (string, error) {
	if id, ok := refs[kind+":"+ref]; ok {
		return id, nil
	}
	if ref != "" && co.object(ref) != nil {
		return ref, nil
	}
	return "", fieldErr(kind, "unknown %s %q", kind, ref)
}

func (refs seedRefs) note(kind, ref, id string) {
	if ref != "" {
		refs[kind+":"+ref] = id
	}
}

// loadLocked adds the seed's companies: each entry goes through the
// mutation the Go seeding methods use, once its refs are resolved.
func (s *Server) loadLocked(seed *Seed, doc *seedDoc) error {
	for i, cs := range seed.Companies {
		path := fmt.Sprintf("seed: companies[%d]", i)
		if err := seedKeyCheck(seed, i, s.defaultCo.apiKey); err != nil {
			return fmt.Errorf("%s.%w", path, err)
		}
		co, err := s.seedCompany(i, cs.APIKey, cs.ID)
		if err != nil {
			return companyError(path, err)
		}
		if doc != nil {
			co.start = &startSeed{doc: *doc, index: i}
		}
		if err := s.loadCompanyLocked(path, co, cs); err != nil {
			return err
		}
	}
	return nil
}

// loadCompanyLocked adds the channels, contacts and conversations of cs to
// co; errors name their place under path.
func (s *Server) loadCompanyLocked(path string, co *company, cs CompanySeed) (err error) {
	s.allowFuture = cs.AllowFuture
	defer func() { s.allowFuture = false }()
	refs := seedRefs{}
	co.reserve(cs)
	for j, ch := range cs.Channels {
		id, err := s.addAccount(co, ch, ch.Channel == convo.ChannelWebchat)
		if err != nil {
			return atPath(fmt.Sprintf("%s.channels[%d]", path, j), err)
		}
		refs.note("channel", ch.Ref, id)
	}
	for j, ct := range cs.Contacts {
		ct.ChannelAccountID, err = refs.resolve(co, "channel", ct.ChannelAccountID)
		id := ""
		if err == nil {
			id, err = s.addContact(co, ct)
		}
		if err != nil {
			return atPath(fmt.Sprintf("%s.contacts[%d]", path, j), err)
		}
		refs.note("contact", ct.Ref, id)
	}
	for j, cv := range cs.Conversations {
		cv.ContactID, err = refs.resolve(co, "contact", cv.ContactID)
		if err == nil {
			_, err = s.addConversation(co, cv)
		}
		if err != nil {
			return atPath(fmt.Sprintf("%s.conversations[%d]", path, j), err)
		}
	}
	return nil
}
