package fake

import (
	"iter"
	"maps"
	"slices"
)

// byID maps ids to a company's objects. An id that is a UUID in the fake's
// form (the default) is keyed by its 16 bytes, any other by the string:
// hashing and comparing 16 bytes reads no other memory, where a string key
// sends every lookup, and every move of a growing map, to the id's bytes
// elsewhere in the heap, which at a million objects is most of the cost of
// adding one.
type byID[V comparable] struct {
	uuids map[[16]byte]V
	names map[string]V
}

func newByID[V comparable]() byID[V] {
	return byID[V]{uuids: map[[16]byte]V{}, names: map[string]V{}}
}

// get returns the object with the given id, the zero V for none.
func (m byID[V]) get(id string) V { return m.find(parseID(id)) }

// find is get for an id parsed already: a lookup in several maps parses
// it once.
func (m byID[V]) find(id parsedID) V {
	if id.isUUID {
		return m.uuids[id.uuid]
	}
	return m.names[id.text]
}

// parsedID is an id with its 16 bytes when it is a UUID in the fake's form.
type parsedID struct {
	text   string
	uuid   [16]byte
	isUUID bool
}

func parseID(id string) parsedID {
	u, ok := parseUUID(id)
	return parsedID{text: id, uuid: u, isUUID: ok}
}

func (m byID[V]) put(id string, v V) {
	if u, ok := parseUUID(id); ok {
		m.uuids[u] = v
		return
	}
	m.names[id] = v
}

// reserve makes room for n more objects with UUID ids (the usual kind).
func (m *byID[V]) reserve(n int) { m.uuids = grown(m.uuids, n) }

// grown returns m, or when n is large a copy of m with room for n more
// entries: a map sized once does not double, moving every entry, some
// twenty times on its way to a million.
func grown[K comparable, V any](m map[K]V, n int) map[K]V {
	if n < 1024 {
		return m
	}
	g := make(map[K]V, len(m)+n)
	maps.Copy(g, m)
	return g
}

func (m byID[V]) len() int { return len(m.uuids) + len(m.names) }

// all yields every object, in no particular order.
func (m byID[V]) all() iter.Seq[V] {
	return func(yield func(V) bool) {
		for _, v := range m.uuids {
			if !yield(v) {
				return
			}
		}
		for _, v := range m.names {
			if !yield(v) {
				return
			}
		}
	}
}

// reserve makes room in the company's indexes for what cs adds, so that
// loading a large seed sizes each of them once.
func (co *company) reserve(cs CompanySeed) {
	msgs := 0
	for _, cv := range cs.Conversations {
		msgs += len(cv.Messages)
	}
	co.contacts.reserve(len(cs.Contacts))
	co.contactsByPhone = grown(co.contactsByPhone, len(cs.Contacts))
	co.convsByID.reserve(len(cs.Conversations))
	co.messages.reserve(msgs)
	co.conversations = slices.Grow(co.conversations, len(cs.Conversations))
}
