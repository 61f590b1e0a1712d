package convo

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// queryBuilder writes the query string of a typed call by hand: one buffer
// where encoding the parameter struct by reflection took a dozen
// allocations. It writes what url.Values.Encode would for the struct's `url`
// tags (omitempty fields left out, values query-escaped), provided the keys
// are added in alphabetical order, as Encode sorts them; a test holds every
// parameter type to that equivalence. A value that is not valid UTF-8 or
// holds a NUL is remembered as the call's error: nothing is sent.
type queryBuilder struct {
	b   []byte
	err error
}

// newQueryBuilder starts a query in a buffer that a typical query fits, so
// that building it costs only the final string.
func newQueryBuilder() queryBuilder { return queryBuilder{b: make([]byte, 0, 128)} }

// queryTimeLayout is how times travel in query strings: UTC, milliseconds.
const queryTimeLayout = "2006-01-02T15:04:05.000Z"

func (q *queryBuilder) key(k string) {
	if len(q.b) > 0 {
		q.b = append(q.b, '&')
	}
	q.b = append(q.b, k...)
	q.b = append(q.b, '=')
}

// str adds k=v unless v is empty.
func (q *queryBuilder) str(k, v string) {
	if v == "" {
		return
	}
	if r := textProblem(v); r != "" && q.err == nil {
		q.err = &InvalidTextError{Where: "query parameter " + k, Reason: r}
	}
	q.key(k)
	q.b = appendQueryEscape(q.b, v)
}

// int adds k=v unless v is 0.
func (q *queryBuilder) int(k string, v int) {
	if v == 0 {
		return
	}
	q.key(k)
	q.b = strconv.AppendInt(q.b, int64(v), 10)
}

// bool adds k=true or k=false unless v is nil.
func (q *queryBuilder) bool(k string, v *bool) {
	if v == nil {
		return
	}
	q.key(k)
	q.b = strconv.AppendBool(q.b, *v)
}

// time adds k=<t in queryTimeLayout, escaped> unless t is zero; the caller
// has already put t in UTC and rounded it (see utc).
func (q *queryBuilder) time(k string, t time.Time) {
	if t.IsZero() {
		return
	}
	q.key(k)
	var buf [len(queryTimeLayout) + 8]byte
	q.b = appendQueryEscape(q.b, t.AppendFormat(buf[:0], queryTimeLayout))
}

// list adds k=<the values joined by commas, escaped> unless there are none.
func (q *queryBuilder) list(k string, vs []string) {
	if len(vs) == 0 {
		return
	}
	q.str(k, strings.Join(vs, ","))
}

// encode returns the query string, or the error of a value that cannot be
// sent, worded for the call (op, such as "Messages.List").
func (q *queryBuilder) encode(op string) (string, error) {
	if q.err != nil {
		return "", fmt.Errorf("convo: %s: %w", op, q.err)
	}
	return string(q.b), nil
}

// appendQueryEscape appends s escaped as url.QueryEscape does: letters,
// digits and -_.~ as they are, a space as +, every other byte as %XX.
func appendQueryEscape[S ~string | ~[]byte](dst []byte, s S) []byte {
	const hex = "0123456789ABCDEF"
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9', c == '-', c == '_', c == '.', c == '~':
			dst = append(dst, c)
		case c == ' ':
			dst = append(dst, '+')
		default:
			dst = append(dst, '%', hex[c>>4], hex[c&15])
		}
	}
	return dst
}

// The query of each typed call, keys in alphabetical order.

func (p *ListMessagesParams) query(q *queryBuilder) {
	q.str("cursor", p.Cursor)
	q.int("limit", p.Limit)
	q.time("since", p.Since)
}

func (p *ListConversationsParams) query(q *queryBuilder) {
	q.bool("assigned", p.Assigned)
	q.str("channel", string(p.Channel))
	q.str("channel_id", p.ChannelID)
	q.str("channel_identifier", p.ChannelIdentifier)
	q.str("cursor", p.Cursor)
	q.int("limit", p.Limit)
	q.str("phone", p.Phone)
	q.time("since", p.Since)
	q.str("status", string(p.Status))
	q.time("until", p.Until)
}

func (p *AnomaliesParams) query(q *queryBuilder) {
	include := make([]string, len(p.Include))
	for i, b := range p.Include {
		include[i] = string(b)
	}
	q.list("include", include)
	q.int("limit", p.Limit)
	q.int("threshold_hours", p.ThresholdHours)
}

func (p *LookupContactParams) query(q *queryBuilder) {
	q.str("phone_number", p.PhoneNumber)
	q.str("phone_number_id", p.PhoneNumberID)
}
