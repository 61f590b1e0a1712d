package fake

import (
	"encoding/json"
	"net/http"
	"strconv"
	"sync"
)

// This file writes the fake's answers: every value is encoded by
// encoding/json; what is kept encoded (a message read lately, a cached
// anomaly report) is framed, not encoded again.

// bufPool recycles answer buffers: big pages would otherwise make the
// garbage collector run often, and each run scans the whole stored state.
var bufPool = sync.Pool{New: func() any { return new([]byte) }}

// writeBody encodes v with encoding/json and writes it with the given
// status. Encoding cannot fail: every answer is made of strings, numbers,
// booleans and the details of fault rules, which are JSON already
// (json.RawMessage).
func writeBody(w http.ResponseWriter, status int, v any) {
	writeWith(w, status, func(b []byte) []byte { return append(b, encode(v)...) })
}

// writeWith writes the JSON that fill appends to a pooled buffer.
func writeWith(w http.ResponseWriter, status int, fill func([]byte) []byte) {
	bp := bufPool.Get().(*[]byte)
	b := fill((*bp)[:0])
	h := w.Header()
	h.Set("Content-Type", "application/json; charset=utf-8")
	h.Set("Content-Length", strconv.Itoa(len(b)))
	w.WriteHeader(status)
	_, _ = w.Write(b)
	if cap(b) <= 1<<20 {
		*bp = b
		bufPool.Put(bp)
	}
}

// encode is v in JSON, as encoding/json writes it (HTML characters escaped).
func encode(v any) []byte {
	b, _ := json.Marshal(v) // see writeBody: encoding cannot fail
	return b
}

// writeJSON writes data in the success envelope, with the given status
// (200, 201 for contact creation).
func (s *Server) writeJSON(w http.ResponseWriter, status int, data any) {
	s.writeEncoded(w, status, part{json: encode(data)})
}

// writeEncoded writes data, JSON encoded already, in the success envelope
// (success, data, timestamp: the service's order).
func (s *Server) writeEncoded(w http.ResponseWriter, status int, data part) {
	data.name = "data"
	envelope := part{fields: []part{{name: "success", json: []byte("true")}, data,
		{name: "timestamp", json: s.timestampJSON(s.clock.Now())}}}
	writeWith(w, status, envelope.append)
}

// part is a JSON value made of values encoded by encoding/json already
// (encode, or kept from an earlier encoding): json itself, else the array
// of items, else the object of fields (each named by its name). They are
// copied, not encoded again, which is what lets a page of messages read
// lately or a cached anomaly report be served without encoding them at
// each request.
type part struct {
	name   string
	json   []byte
	items  [][]byte
	fields []part
}

func (p part) append(b []byte) []byte {
	switch {
	case p.json != nil:
		return append(b, p.json...)
	case p.items != nil:
		b = append(b, '[')
		for i, it := range p.items {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, it...)
		}
		return append(b, ']')
	}
	b = append(b, '{')
	for i, f := range p.fields {
		if i > 0 {
			b = append(b, ',')
		}
		b = f.append(append(append(b, encodedName(f.name)...), ':'))
	}
	return append(b, '}')
}

// names keeps the encoded names of parts' fields: a handful of keys,
// encoded once.
var names sync.Map // string -> []byte

func encodedName(name string) []byte {
	if b, ok := names.Load(name); ok {
		return b.([]byte)
	}
	b := encode(name)
	names.Store(name, b)
	return b
}
