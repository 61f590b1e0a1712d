package fake

import (
	"bytes"
	"encoding/json"
)

// seedDoc is a Seed in JSON, kept in pieces: the start copy a company is
// reset to (startSeed). edit, when set, changes each Seed decoded from it
// (WithSeedDocument: the document as read, and what its reader changed).
type seedDoc struct {
	pieces [][]byte
	edit   func(*Seed)
}

// Piece sizes: small seeds (a test's) keep small documents, large ones
// (a state file's) are written a MiB at a time.
const (
	firstPiece = 4 << 10
	maxPiece   = 1 << 20
)

// encodeSeed encodes seed as json.Marshal does, but one contact and one
// conversation at a time, into pieces that are never copied or grown. A
// state file's seed of 100,000 messages is 23 MB of JSON: json.Marshal
// builds that in one buffer that doubles, zeroing and copying each larger
// one, and in a new process (which faults in every page it touches) it took
// five times as long as this, and longer than the load it runs beside.
//
// The document's contacts and conversations come after a company's other
// fields; DecodeSeed reads the fields in any order. A Seed without
// companies, or whose encoding does not end with them, is encoded whole.
func encodeSeed(seed *Seed) seedDoc {
	head := *seed
	head.Companies = []CompanySeed{}
	top, ok := bytes.CutSuffix(encode(&head), []byte(`[]}`))
	if !ok || seed.Companies == nil {
		return seedDoc{pieces: [][]byte{encode(seed)}}
	}
	w := &pieceWriter{}
	enc := json.NewEncoder(w) // writes each value whole, from a buffer of its own
	_, _ = w.Write(top)
	w.put("[")
	for i := range seed.Companies {
		if i > 0 {
			w.put(",")
		}
		w.company(enc, &seed.Companies[i])
	}
	w.put("]}")
	return seedDoc{pieces: w.done()}
}

// company writes cs: its other fields as json.Marshal writes them, then
// its contacts and conversations one by one.
func (w *pieceWriter) company(enc *json.Encoder, cs *CompanySeed) {
	rest := *cs
	rest.Contacts, rest.Conversations = nil, nil
	fields := encode(&rest)
	fields = fields[:len(fields)-1] // without its closing brace
	_, _ = w.Write(fields)
	more := len(fields) > 1
	more = writeArray(w, enc, more, `"contacts":[`, cs.Contacts) || more
	writeArray(w, enc, more, `"conversations":[`, cs.Conversations)
	w.put("}")
}

// writeArray writes `,"name":[...]` (without the comma when it is the
// object's first field) and says whether it wrote anything: an empty array
// is left out, as omitempty does.
func writeArray[T any](w *pieceWriter, enc *json.Encoder, comma bool, open string, items []T) bool {
	if len(items) == 0 {
		return false
	}
	if comma {
		w.put(",")
	}
	w.put(open)
	for i := range items {
		if i > 0 {
			w.put(",")
		}
		_ = enc.Encode(&items[i]) // see encode: encoding cannot fail
	}
	w.put("]")
	return true
}

// pieceWriter appends to pieces that double in size up to maxPiece.
type pieceWriter struct{ pieces [][]byte }

func (w *pieceWriter) Write(p []byte) (int, error) {
	n := len(p)
	for len(p) > 0 {
		last := len(w.pieces) - 1
		if last < 0 || len(w.pieces[last]) == cap(w.pieces[last]) {
			size := firstPiece
			if last >= 0 {
				size = min(2*cap(w.pieces[last]), maxPiece)
			}
			w.pieces = append(w.pieces, make([]byte, 0, size))
			last++
		}
		piece := w.pieces[last]
		k := copy(piece[len(piece):cap(piece)], p)
		w.pieces[last], p = piece[:len(piece)+k], p[k:]
	}
	return n, nil
}

// put writes s (a separator or a field's name).
func (w *pieceWriter) put(s string) { _, _ = w.Write([]byte(s)) }

// done returns the pieces, the last one cut to its length.
func (w *pieceWriter) done() [][]byte {
	if last := len(w.pieces) - 1; last >= 0 {
		w.pieces[last] = bytes.Clone(w.pieces[last])
	}
	return w.pieces
}

// bytes is the document in one slice: the one piece itself (a
// WithSeedDocument's, whose reader reads it in place), else the pieces
// joined.
func (d seedDoc) bytes() []byte {
	if len(d.pieces) == 1 {
		return d.pieces[0]
	}
	return bytes.Join(d.pieces, nil)
}

// decode reads the document as DecodeSeed does, and makes edit's changes.
func (d seedDoc) decode() (*Seed, error) {
	seed, err := DecodeSeedBytes(d.bytes())
	if err == nil && d.edit != nil {
		d.edit(seed)
	}
	return seed, err
}
