package fake

import (
	"crypto/rand"
	"encoding/binary"
	"math/bits"
	"net/http"
	"strconv"
	"sync/atomic"
	"time"

	convo "github.com/convoapi/convo-go"
)

// The fake's own error codes, for situations the service's interface does not
// show; every other code it answers is one of convo's ErrorCode constants.
const (
	codeNotFound         convo.ErrorCode = "NOT_FOUND"          // 404: unknown route or file URL
	codeMethodNotAllowed convo.ErrorCode = "METHOD_NOT_ALLOWED" // 405: known path, other method
	codeURLExpired       convo.ErrorCode = "URL_EXPIRED"        // 403: an attachment URL past its expires_at
	codeInternalError    convo.ErrorCode = "INTERNAL_ERROR"     // 500: default code of a fault rule with status 500
)

const (
	msgUnauthorized            = "Invalid or missing API key." // the service's text, exactly
	timestampLayout            = "2006-01-02T15:04:05.000Z"    // RFC 3339, UTC, milliseconds, Z
	defaultMessagePageLimit    = 50                            // GET /conversations/{conversation_id}/messages
	defaultConversationPageLim = 25                            // GET /conversations
)

// formatTime renders t as every time the API shows: RFC 3339, UTC, exactly three
// fractional digits, Z suffix.
func formatTime(t time.Time) string { return t.UTC().Format(timestampLayout) }

// apiError is an error answer before it is written.
type apiError struct {
	status  int
	code    convo.ErrorCode
	message string
	details any // nil: no details key at all (only some codes have details)
	// retryAfter, when positive, is sent as Retry-After in whole seconds.
	retryAfter time.Duration
}

func errf(status int, code convo.ErrorCode, message string) *apiError {
	return &apiError{status: status, code: code, message: message}
}

func invalidParam(msg string) *apiError {
	return errf(http.StatusBadRequest, convo.CodeInvalidParam, msg)
}
func missingParam(name string) *apiError {
	return errf(http.StatusBadRequest, convo.CodeMissingParam, name+" is required")
}

// errorIDs makes errorId values of the form ERR-XXXXXXXX-XXXX (upper-case
// base 36), unique per error. Each value is the image of a counter under a
// bijection of [0, 36^12), so two errors of one process never share an id,
// while the ids still look random.
type errorIDs struct {
	n      atomic.Uint64
	offset uint64
}

const idSpace = 4738381338321616896 // 36^12

// idMul is odd and not a multiple of 3, hence invertible modulo 36^12.
const idMul = 0x5DEECE66D*2 + 1

func newErrorIDs() *errorIDs {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return &errorIDs{offset: binary.LittleEndian.Uint64(b[:]) % idSpace}
}

func (g *errorIDs) next() string {
	n := g.n.Add(1)
	hi, lo := bits.Mul64(n, idMul)
	_, v := bits.Div64(hi%idSpace, lo, idSpace) // (n*idMul) mod 36^12, without overflow
	v = (v + g.offset) % idSpace
	const digits = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	var out [12]byte
	for i := 11; i >= 0; i-- {
		out[i] = digits[v%36]
		v /= 36
	}
	return "ERR-" + string(out[:8]) + "-" + string(out[8:])
}

// errorBody is the error body of every error answer (the error envelope of
// api/openapi.yaml). Field order follows the service's.
type errorBody struct {
	Success    bool         `json:"success"`
	StatusCode int          `json:"statusCode"`
	Timestamp  string       `json:"timestamp"`
	Path       string       `json:"path"`
	Method     string       `json:"method"`
	Message    errorMessage `json:"message"`
	ErrorID    string       `json:"errorId"`
}

type errorMessage struct {
	Error   convo.ErrorCode `json:"error"`
	Message string          `json:"message"`
	Details any             `json:"details,omitempty"`
}

// writeError writes e in the error envelope. Its path is the request path
// in its /api/v1 form (internalPath), without the query string.
func (s *Server) writeError(w http.ResponseWriter, r *http.Request, e *apiError) {
	body := errorBody{
		StatusCode: e.status,
		Timestamp:  formatTime(s.clock.Now()),
		Path:       internalPath(r.URL.EscapedPath()),
		Method:     r.Method,
		Message:    errorMessage{Error: e.code, Message: e.message, Details: e.details},
		ErrorID:    s.errIDs.next(),
	}
	if e.retryAfter > 0 {
		w.Header().Set("Retry-After", strconv.FormatInt(ceilSeconds(e.retryAfter), 10))
	}
	writeBody(w, e.status, body)
}

// WriteError answers r with an error in the service's envelope, as the
// server's own errors are written: status, message.error code,
// message.message message, the path in its /api/v1 form, a timestamp on the
// server's clock and a fresh errorId, and a Date header on that clock too
// (net/http would write the machine's). It is for a handler mounted in front
// of [Server.Handler] that refuses a request before the fake sees it (e.g.
// cmd/convofake's check of the Host header), so that a client reads the
// refusal as it reads any error of the API. Nothing goes to the journal.
func (s *Server) WriteError(w http.ResponseWriter, r *http.Request, status int, code convo.ErrorCode, message string) {
	w.Header().Set("Date", s.dateHeader(s.clock.Now()))
	s.writeError(w, r, errf(status, code, message))
}

// ceilSeconds rounds a positive d up to whole seconds (at least 1).
func ceilSeconds(d time.Duration) int64 {
	return int64((d + time.Second - 1) / time.Second)
}
