package fake

import "sync"

// messageCacheBytes bounds the JSON a company's message cache keeps: 4 MiB,
// some 10,000 messages, a few bytes per stored message at a million.
const messageCacheBytes = 4 << 20

// messageCache keeps the JSON of the messages read lately, so that a page
// read again is copied rather than encoded again. It is bounded by bytes in
// two generations: what is read goes to the current one; when that is
// full, it becomes the previous one and the one before is dropped, so what
// is read often stays and the rest ages out. A message that changes is
// forgotten (forget), never updated in place: the cache is never the
// truth, the record is.
//
// Pages are read under the store's read lock, by many readers at once:
// the cache has its own lock.
type messageCache struct {
	mu        sync.Mutex
	cur, prev map[*message][]byte
	curBytes  int
}

// encodeAll returns the JSON of each message, from the cache where it has
// it; the others are encoded (outside the cache's lock) and kept. The
// caller holds the store's lock, at least for reading.
func (c *messageCache) encodeAll(msgs []*message) [][]byte {
	out := make([][]byte, len(msgs))
	missing := c.lookup(msgs, out)
	if missing == 0 {
		return out
	}
	for i, m := range msgs {
		if out[i] == nil {
			out[i] = m.encode()
		}
	}
	c.keep(msgs, out)
	return out
}

// lookup fills out with what the cache has and returns how many it lacks.
func (c *messageCache) lookup(msgs []*message, out [][]byte) (missing int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for i, m := range msgs {
		b, ok := c.cur[m]
		if !ok {
			if b, ok = c.prev[m]; ok {
				c.putLocked(m, b) // read again: it moves to the current generation
			}
		}
		if !ok {
			missing++
		}
		out[i] = b
	}
	return missing
}

func (c *messageCache) keep(msgs []*message, encoded [][]byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for i, m := range msgs {
		c.putLocked(m, encoded[i])
	}
}

func (c *messageCache) putLocked(m *message, b []byte) {
	if _, ok := c.cur[m]; ok {
		return
	}
	if c.cur == nil || c.curBytes+len(b) > messageCacheBytes/2 {
		c.prev, c.cur, c.curBytes = c.cur, map[*message][]byte{}, 0
	}
	c.cur[m] = b
	c.curBytes += len(b)
}

// forget drops m's JSON: m has changed.
func (c *messageCache) forget(m *message) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.cur, m)
	delete(c.prev, m)
}
