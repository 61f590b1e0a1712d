package fake

import (
	"slices"
	"sort"
	"time"
)

// The conversation list's order index (see company.order). Every function
// here expects Server.mu held: noteMove under the write lock, the others
// under at least the read lock.

// listKey is where a conversation sorts in the list as of now: its latest
// message, or its creation when it has none.
func (c *conversation) listKey() time.Time {
	if c.lastMessageAt.IsZero() {
		return c.createdAt0
	}
	return c.lastMessageAt
}

// listsBefore reports whether (ak, aid) comes before (bk, bid) in the list:
// more recent key first, ties by larger id first.
func listsBefore(ak time.Time, aid string, bk time.Time, bid string) bool {
	if !ak.Equal(bk) {
		return ak.After(bk)
	}
	return aid > bid
}

// noteMove records that c was created or its list key changed at seq.
func (co *company) noteMove(c *conversation, seq uint64) {
	c.movedSeq = seq
	co.moves = append(co.moves, move{seq, c})
	if !c.pending {
		c.pending = true
		co.unordered = append(co.unordered, c)
	}
	if len(co.moves) > 2*len(co.conversations)+1024 {
		co.compactMoves()
	}
}

// compactMoves keeps only each conversation's latest entry, in seq order:
// the only one that tells whether it moved after a given point.
func (co *company) compactMoves() {
	kept := co.moves[:0]
	for _, m := range co.moves {
		if m.seq == m.conv.movedSeq {
			kept = append(kept, m)
		}
	}
	clear(co.moves[len(kept):])
	co.moves = kept
}

// movedSince returns the conversations whose list key changed (or that were
// created) after seq: their key as of seq may differ from where the order
// has them.
func (co *company) movedSince(seq uint64) map[*conversation]bool {
	i := sort.Search(len(co.moves), func(i int) bool { return co.moves[i].seq > seq })
	if i == len(co.moves) {
		return nil
	}
	moved := make(map[*conversation]bool, len(co.moves)-i)
	for _, m := range co.moves[i:] {
		moved[m.conv] = true
	}
	return moved
}

// ensureOrder brings co.order up to date with the conversations noted since
// the last listing: placed one by one when they are few, else re-sorted.
func (co *company) ensureOrder() {
	co.orderMu.Lock()
	defer co.orderMu.Unlock()
	if len(co.unordered) == 0 {
		return
	}
	if len(co.unordered) > 64 && len(co.unordered) > len(co.order)/16 {
		for _, c := range co.unordered {
			c.pending = false
		}
		co.unordered = co.unordered[:0]
		co.order = append(co.order[:0], co.conversations...)
		for _, c := range co.order {
			c.orderKey, c.inOrder = c.listKey(), true
		}
		slices.SortFunc(co.order, func(a, b *conversation) int {
			switch {
			case listsBefore(a.orderKey, a.ID, b.orderKey, b.ID):
				return -1
			case listsBefore(b.orderKey, b.ID, a.orderKey, a.ID):
				return 1
			}
			return 0
		})
		return
	}
	for _, c := range co.unordered {
		c.pending = false
		if c.inOrder {
			i := co.orderIndex(c.orderKey, c.ID)
			co.order = slices.Delete(co.order, i, i+1)
		}
		c.orderKey, c.inOrder = c.listKey(), true
		co.order = slices.Insert(co.order, co.orderIndex(c.orderKey, c.ID), c)
	}
	clear(co.unordered)
	co.unordered = co.unordered[:0]
}

// orderIndex is the position of the first conversation of co.order that
// does not list before (key, id).
func (co *company) orderIndex(key time.Time, id string) int {
	return sort.Search(len(co.order), func(i int) bool {
		c := co.order[i]
		return !listsBefore(c.orderKey, c.ID, key, id)
	})
}
