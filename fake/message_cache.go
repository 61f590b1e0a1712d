package fake

import "sync"

// messageCacheBytes bounds the JSON a company's message cache keeps: 4 MiB
// of messages (some 10,000) and 2 MiB of pages, a few bytes per stored
// message at a million.
const (
	messageCacheBytes = 4 << 20
	pageCacheBytes    = 2 << 20
)

// messageCache keeps the JSON of the messages and of the message pages
// read lately, so that a page read again is copied rather than encoded
// again. Neither is ever the truth: a message that changes is forgotten
// (forget), and a page is kept with the version of its conversation and
// taken only while the conversation is still at it.
//
// Pages are read under the store's read lock, by many readers at once:
// the cache has its own lock.
type messageCache struct {
	mu       sync.Mutex
	messages generations[*message]
	pages    generations[pageKey]
}

// pageKey names a page of a conversation's messages: its window and the
// stored messages [start, hi) it shows.
type pageKey struct {
	conv       *conversation
	sinceMilli int64 // the window's start as the page shows it (window.since)
	start, hi  int
	version    uint64 // the conversation's version: it moves whenever one of its messages is added or changes
}

// page returns the page's JSON (the data of the answer), if kept.
func (c *messageCache) page(k pageKey) ([]byte, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.pages.get(k, pageCacheBytes)
}

// keepPage keeps a page's JSON.
func (c *messageCache) keepPage(k pageKey, data []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.pages.put(k, data, pageCacheBytes)
}

// encodeAll returns the JSON of each message, from the cache where it has
// it; the others are encoded (outside the cache's lock) and kept. The
// caller holds the store's lock, at least for reading.
func (c *messageCache) encodeAll(msgs []*message) [][]byte {
	out := make([][]byte, len(msgs))
	if c.lookup(msgs, out) == 0 {
		return out
	}
	for i, m := range msgs {
		if out[i] == nil {
			out[i] = m.encode()
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for i, m := range msgs {
		c.messages.put(m, out[i], messageCacheBytes)
	}
	return out
}

// lookup fills out with what the cache has and returns how many it lacks.
func (c *messageCache) lookup(msgs []*message, out [][]byte) (missing int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for i, m := range msgs {
		b, ok := c.messages.get(m, messageCacheBytes)
		if !ok {
			missing++
		}
		out[i] = b
	}
	return missing
}

// forget drops m's JSON: m has changed. (Its pages are left to age out:
// the conversation's version has moved on.)
func (c *messageCache) forget(m *message) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.messages.drop(m)
}

// generations is a map bounded by the bytes of its values, in two
// generations: what is put or read goes to the current one; when that is
// full, it becomes the previous one and the one before is dropped, so what
// is read often stays and the rest ages out. Its user holds a lock.
type generations[K comparable] struct {
	cur, prev map[K][]byte
	curBytes  int
}

// get returns k's value; one read from the previous generation moves to
// the current one (put, with the same bound).
func (g *generations[K]) get(k K, limit int) ([]byte, bool) {
	if b, ok := g.cur[k]; ok {
		return b, true
	}
	b, ok := g.prev[k]
	if ok {
		g.put(k, b, limit)
	}
	return b, ok
}

// put keeps b, the total bounded by limit.
func (g *generations[K]) put(k K, b []byte, limit int) {
	if _, ok := g.cur[k]; ok {
		return
	}
	if g.cur == nil || g.curBytes+len(b) > limit/2 {
		g.prev, g.cur, g.curBytes = g.cur, map[K][]byte{}, 0
	}
	g.cur[k] = b
	g.curBytes += len(b)
}

func (g *generations[K]) drop(k K) {
	delete(g.cur, k)
	delete(g.prev, k)
}
