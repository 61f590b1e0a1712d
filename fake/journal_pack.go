package fake

import (
	"encoding/binary"
	"net/http"
)

// This file holds how a journal entry keeps a request until the journal is
// read: its headers and body packed in one byte slice.

// internMethod returns the usual methods as constants, so that an entry
// does not keep alive the request line its method was cut from.
func internMethod(m string) string {
	for _, c := range [...]string{http.MethodGet, http.MethodPost, http.MethodPatch, http.MethodDelete, http.MethodHead, http.MethodPut} {
		if m == c {
			return c
		}
	}
	return m
}

// packHeader copies h into one byte slice, with room for extra more bytes
// after it: for each name, its length and bytes, the number of its values,
// then each value's length and bytes (lengths as uvarints). A copy made
// this way is one allocation without pointers, where [http.Header.Clone]
// makes a map and a slice of strings for the collector to scan at each
// cycle. size is the header's part of the journal's byte budget, as
// rawSize counts an unpacked header.
func packHeader(h http.Header, extra int) (packed []byte, size int) {
	var stack [512]byte // one pass over the map into it, then one exact copy
	b := stack[:0]
	for name, vs := range h {
		size += len(name)
		b = appendPacked(b, name)
		b = binary.AppendUvarint(b, uint64(len(vs)))
		for _, v := range vs {
			size += headerValueSize(name, v)
			b = appendPacked(b, v)
		}
	}
	out := make([]byte, len(b), len(b)+extra)
	copy(out, b)
	return out, size
}

func appendPacked(b []byte, s string) []byte {
	return append(binary.AppendUvarint(b, uint64(len(s))), s...)
}

// unpackHeader is the header packHeader packed in b. A name without values
// comes back with nil values, as [http.Header.Clone] keeps it.
func unpackHeader(b []byte) http.Header {
	h := http.Header{}
	for len(b) > 0 {
		var name string
		name, b = unpackString(b)
		count, w := binary.Uvarint(b)
		if w <= 0 {
			break
		}
		b = b[w:]
		var vs []string
		if count > 0 {
			vs = make([]string, 0, count)
		}
		for range count {
			var v string
			v, b = unpackString(b)
			vs = append(vs, v)
		}
		h[name] = vs
	}
	return h
}

// unpackString reads one length-prefixed string of a packed header.
func unpackString(b []byte) (string, []byte) {
	n, w := binary.Uvarint(b)
	if w <= 0 || uint64(len(b)-w) < n {
		return "", nil
	}
	return string(b[w : w+int(n)]), b[w+int(n):]
}

// packedHeader is the header part of e.packed: all of it but the body at
// its end.
func (e *entry) packedHeader() []byte { return e.packed[:len(e.packed)-len(e.body)] }
