package convo

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// ErrorCode is the named code of an error answer, `message.error` (docs/behaviour.md, Errors).
// Errors are handled by this code, never by their text.
type ErrorCode string

// The codes of the ErrorCode schema in api/openapi.yaml.
const (
	CodeInvalidParam          ErrorCode = "INVALID_PARAM"
	CodeMissingParam          ErrorCode = "MISSING_PARAM"
	CodeInvalidBucket         ErrorCode = "INVALID_BUCKET"
	CodeUnauthorized          ErrorCode = "UNAUTHORIZED"
	CodeConversationNotFound  ErrorCode = "CONVERSATION_NOT_FOUND"
	CodeContactNotFound       ErrorCode = "CONTACT_NOT_FOUND"
	CodeChannelNotFound       ErrorCode = "CHANNEL_NOT_FOUND"
	CodeContactExists         ErrorCode = "CONTACT_EXISTS"
	CodeRateLimited           ErrorCode = "RATE_LIMITED"
	CodeCancelFailed          ErrorCode = "CANCEL_FAILED"
	CodeChannelMismatch       ErrorCode = "CHANNEL_MISMATCH"
	CodeNoOpenConversation    ErrorCode = "NO_OPEN_CONVERSATION"
	CodeRecipientNotOnChannel ErrorCode = "RECIPIENT_NOT_ON_CHANNEL"
	CodeUnsupportedCapability ErrorCode = "UNSUPPORTED_CAPABILITY"
	// CodeMediaNotFound is the answer of the attachment endpoint for a
	// media_id that does not exist or belongs to another company.
	CodeMediaNotFound ErrorCode = "MEDIA_NOT_FOUND"
)

// codeSentinel is the target type of the Err… values: errors.Is matches an
// *Error against it by code.
type codeSentinel struct{ code ErrorCode }

func (s *codeSentinel) Error() string { return "convo: " + string(s.code) }

// Sentinels for errors.Is, one per code of docs/behaviour.md, Errors:
//
//	if errors.Is(err, convo.ErrContactNotFound) { … }
var (
	ErrInvalidParam          error = &codeSentinel{CodeInvalidParam}
	ErrMissingParam          error = &codeSentinel{CodeMissingParam}
	ErrInvalidBucket         error = &codeSentinel{CodeInvalidBucket}
	ErrUnauthorized          error = &codeSentinel{CodeUnauthorized}
	ErrConversationNotFound  error = &codeSentinel{CodeConversationNotFound}
	ErrContactNotFound       error = &codeSentinel{CodeContactNotFound}
	ErrChannelNotFound       error = &codeSentinel{CodeChannelNotFound}
	ErrContactExists         error = &codeSentinel{CodeContactExists}
	ErrRateLimited           error = &codeSentinel{CodeRateLimited}
	ErrCancelFailed          error = &codeSentinel{CodeCancelFailed}
	ErrChannelMismatch       error = &codeSentinel{CodeChannelMismatch}
	ErrNoOpenConversation    error = &codeSentinel{CodeNoOpenConversation}
	ErrRecipientNotOnChannel error = &codeSentinel{CodeRecipientNotOnChannel}
	ErrUnsupportedCapability error = &codeSentinel{CodeUnsupportedCapability}
	ErrMediaNotFound         error = &codeSentinel{CodeMediaNotFound}
)

// Errors about the response itself rather than the service's verdict. They are
// reached with errors.Is through the *Error that carries the status.
var (
	// ErrMalformedResponse: the body is not the service's JSON envelope (a
	// proxy's HTML page, an empty or truncated body).
	ErrMalformedResponse = errors.New("convo: malformed response")
	// ErrResponseTooLarge: the body is larger than WithMaxResponseBytes.
	ErrResponseTooLarge = errors.New("convo: response too large")
)

// excerptLimit bounds the body excerpt kept on an Error, so that a huge HTML
// page does not end up in logs.
const excerptLimit = 512

// Error is every non-2xx answer, and every answer whose body cannot be read as
// the service's envelope (docs/behaviour.md, Errors).
//
//	var apiErr *convo.Error
//	if errors.As(err, &apiErr) && apiErr.Code == convo.CodeContactNotFound { … }
type Error struct {
	// StatusCode is the HTTP status (equal to the body's statusCode).
	StatusCode int
	// Code is message.error; empty when the body was not the error envelope.
	Code ErrorCode
	// Message is message.message, an English text for humans.
	Message string
	// Details is message.details as sent, or nil. See InvalidBucket for the
	// typed view of INVALID_BUCKET details.
	Details json.RawMessage
	// ErrorID identifies the error for support (ERR-XXXXXXXX-XXXX).
	ErrorID string
	// Path is the internal path of the request, with the /api/v1 prefix.
	Path string
	// Method is the HTTP method as the server reports it.
	Method string
	// Timestamp is when the server produced the error; zero if absent.
	Timestamp time.Time
	// RetryAfter is the wait the server asked for (Retry-After) on a 429 or
	// 503; zero when none was given.
	RetryAfter time.Duration
	// Body is a bounded excerpt (at most 512 bytes) of a body that was not
	// the error envelope; nil otherwise.
	Body []byte
	// Header holds the answer's headers (redacted like every other field).
	Header http.Header
	// Attempts is the number of requests the call sent, retries included;
	// 0 when the client's rate limiter held the call before any request.
	Attempts int
	// Duration is the whole call's time, waits between attempts included.
	Duration time.Duration
	// Held reports a 429 that the client made itself, without sending the
	// attempt: the client's rate limiter (or the anomaly report's own
	// Retry-After) would have held it longer than the call's maximum retry
	// wait or past its deadline. RetryAfter is then the wait that was left.
	Held bool

	cause error // ErrMalformedResponse or ErrResponseTooLarge, when relevant
}

// Error reads on one line, for example:
//
//	convo: 404 CONTACT_NOT_FOUND: Contact not found (GET /api/v1/chatapp/contacts/lookup, errorId ERR-…, 1 attempt)
//
// It names the status, the code, the message, the method and path (never the
// query), the errorId and the number of attempts. Every part is redacted of
// the API key, and line breaks the server put in its message become spaces.
func (e *Error) Error() string {
	var b strings.Builder
	b.Grow(96 + len(e.Message))
	b.WriteString("convo: ")
	b.WriteString(strconv.Itoa(e.StatusCode))
	if e.Code != "" {
		b.WriteString(" " + oneLine(string(e.Code)))
	} else if t := http.StatusText(e.StatusCode); t != "" {
		b.WriteString(" " + t)
	}
	if e.Message != "" {
		b.WriteString(": " + oneLine(e.Message))
	}
	if len(e.Body) > 0 && e.Code == "" {
		fmt.Fprintf(&b, ": body %q", truncate(e.Body, 120))
	}
	var meta []string
	if e.Method != "" || e.Path != "" {
		path, _, _ := strings.Cut(e.Path, "?")
		meta = append(meta, strings.TrimSpace(oneLine(e.Method)+" "+oneLine(path)))
	}
	if e.ErrorID != "" {
		meta = append(meta, "errorId "+oneLine(e.ErrorID))
	}
	switch {
	case e.Attempts == 1:
		meta = append(meta, "1 attempt")
	case e.Attempts > 1:
		meta = append(meta, strconv.Itoa(e.Attempts)+" attempts")
	}
	if e.RetryAfter > 0 {
		meta = append(meta, "retry after "+e.RetryAfter.String())
	}
	if len(meta) > 0 {
		b.WriteString(" (" + strings.Join(meta, ", ") + ")")
	}
	return b.String()
}

// GoString shows the error's fields for %#v, every one of them redacted like
// Error's text (the body excerpt as text rather than bytes).
func (e *Error) GoString() string {
	return fmt.Sprintf("&convo.Error{StatusCode:%d, Code:%q, Message:%q, Details:%q, ErrorID:%q, Path:%q, Method:%q, Timestamp:%q, RetryAfter:%q, Body:%q, Attempts:%d, Duration:%q}",
		e.StatusCode, e.Code, e.Message, string(e.Details), e.ErrorID, e.Path, e.Method,
		e.Timestamp.Format(time.RFC3339Nano), e.RetryAfter.String(), string(e.Body), e.Attempts, e.Duration.String())
}

// oneLine replaces control characters (line breaks included) with spaces, so
// that an error is always one line of a log.
func oneLine(s string) string {
	if strings.IndexFunc(s, unicode.IsControl) < 0 {
		return s
	}
	return strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return ' '
		}
		return r
	}, s)
}

// Is matches the Err… sentinels by code, and ErrMalformedResponse or
// ErrResponseTooLarge by cause.
//
// An answer whose body is not the envelope (a proxy's page) has no code;
// where the spec ties a status to a single code it still matches: a bare 429
// is ErrRateLimited and a bare 401 is ErrUnauthorized (docs/behaviour.md, Errors).
func (e *Error) Is(target error) bool {
	s, ok := target.(*codeSentinel)
	if !ok {
		return false
	}
	if e.Code == "" {
		switch e.StatusCode {
		case http.StatusTooManyRequests:
			return s.code == CodeRateLimited
		case http.StatusUnauthorized:
			return s.code == CodeUnauthorized
		}
	}
	return e.Code == s.code
}

// Unwrap returns ErrMalformedResponse or ErrResponseTooLarge when the body
// could not be read as the envelope, else nil.
func (e *Error) Unwrap() error { return e.cause }

// Temporary reports whether the same call may succeed later unchanged: rate
// limiting and the server-side or gateway failures that the retry policy also
// treats as passing.
func (e *Error) Temporary() bool {
	switch e.StatusCode {
	case http.StatusTooManyRequests, http.StatusRequestTimeout, http.StatusBadGateway,
		http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		return true
	}
	return false
}

// InvalidBucketDetails is the details object of INVALID_BUCKET (OpenAPI getAnomalies
// rule 5).
type InvalidBucketDetails struct {
	// ValidBuckets lists the four bucket names.
	ValidBuckets []Bucket `json:"valid_buckets"`
	// OptIn lists the buckets returned only on request.
	OptIn []Bucket `json:"opt_in"`
}

// InvalidBucket decodes the details of an INVALID_BUCKET error. ok is false for
// any other code or when the details cannot be read.
func (e *Error) InvalidBucket() (d InvalidBucketDetails, ok bool) {
	if e.Code != CodeInvalidBucket || len(e.Details) == 0 {
		return d, false
	}
	if err := json.Unmarshal(e.Details, &d); err != nil {
		return InvalidBucketDetails{}, false
	}
	return d, true
}

// truncate cuts b to at most n bytes without splitting a UTF-8 sequence.
func truncate(b []byte, n int) []byte {
	if len(b) <= n {
		return b
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(b[cut]) {
		cut--
	}
	out := make([]byte, cut, cut+3)
	copy(out, b[:cut])
	return append(out, "..."...)
}

// TransportError reports a call that got no usable response: a connection
// failure, a timeout, a cancelled context. errors.Is(err, context.Canceled) and
// errors.Is(err, context.DeadlineExceeded) work through it.
type TransportError struct {
	// Method is the request's HTTP method.
	Method string
	// Path is the request's path relative to {base_url}, without the query
	// (its values may be personal data).
	Path string
	// Attempts is the number of requests sent, retries included.
	Attempts int
	// Duration is the whole call's time, waits between attempts included.
	Duration time.Duration
	msg      string
	err      error
}

// Error describes the failure without the URL's query or any secret.
func (e *TransportError) Error() string {
	return "convo: " + e.Method + " " + e.Path + ": " + e.msg
}

// GoString shows the error for %#v without its underlying error, whose text
// is only reached, redacted, through Error.
func (e *TransportError) GoString() string {
	return fmt.Sprintf("&convo.TransportError{Method:%q, Path:%q, Attempts:%d, Duration:%q, Err:%q}",
		e.Method, e.Path, e.Attempts, e.Duration.String(), e.msg)
}

// Unwrap returns the underlying error.
func (e *TransportError) Unwrap() error { return e.err }

// Timeout reports whether the call failed by running out of time: the
// context's deadline, the http.Client's Timeout, or a network timeout.
func (e *TransportError) Timeout() bool {
	if errors.Is(e.err, context.DeadlineExceeded) {
		return true
	}
	var ne interface{ Timeout() bool }
	return errors.As(e.err, &ne) && ne.Timeout()
}
