package fake

import (
	"net/http"
	"sync/atomic"
	"time"
)

// timeCache keeps the last Date header and the last envelope timestamp
// made, with the clock reading they were made from: on a manual clock every
// answer shows the same time, and on a real one the answers of the same
// second (Date) or millisecond (timestamp) do, so most answers reuse the
// text instead of formatting the time again.
type timeCache struct {
	date      atomic.Pointer[formattedTime]
	timestamp atomic.Pointer[formattedTime]
}

// formattedTime is a time's text, made for the second sec and, for a
// timestamp, the millisecond ms within it.
type formattedTime struct {
	sec  int64
	ms   int
	text string
	json []byte
}

// dateHeader is t as the Date header writes it (http.TimeFormat, which
// shows whole seconds).
func (c *timeCache) dateHeader(t time.Time) string {
	sec := t.Unix()
	if f := c.date.Load(); f != nil && f.sec == sec {
		return f.text
	}
	f := &formattedTime{sec: sec, text: t.UTC().Format(http.TimeFormat)}
	c.date.Store(f)
	return f.text
}

// timestampJSON is t as the envelope's timestamp, encoded: the JSON string
// of formatTime(t), which shows whole milliseconds. The caller must not
// change the bytes.
func (c *timeCache) timestampJSON(t time.Time) []byte {
	sec, ms := t.Unix(), t.Nanosecond()/int(time.Millisecond)
	if f := c.timestamp.Load(); f != nil && f.sec == sec && f.ms == ms {
		return f.json
	}
	f := &formattedTime{sec: sec, ms: ms, json: encode(formatTime(t))}
	c.timestamp.Store(f)
	return f.json
}

// dateHeader is t as the Date header writes it, from the time cache unless
// the server leaves it out.
func (s *Server) dateHeader(t time.Time) string {
	if !s.on(shortcutTimeTexts) {
		return t.UTC().Format(http.TimeFormat)
	}
	return s.times.dateHeader(t)
}

// timestampJSON is t as the envelope's timestamp, encoded, from the time
// cache unless the server leaves it out.
func (s *Server) timestampJSON(t time.Time) []byte {
	if !s.on(shortcutTimeTexts) {
		return encode(formatTime(t))
	}
	return s.times.timestampJSON(t)
}
