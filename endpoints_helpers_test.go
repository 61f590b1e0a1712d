package convo_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jarcoal/httpmock"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	convo "github.com/convoapi/convo-go"
	"github.com/convoapi/convo-go/internal/oascheck"
)

// Shared fixtures of the endpoint tests (external package convo_test).

const (
	testKey  = "sk_test_4f9c2a7e1b"
	testBase = "https://api.example.test/v1"
	testTS   = "2026-11-22T10:04:05.123Z"
)

// recorded is what the mock saw of one request.
type recorded struct {
	Method   string
	Host     string
	Path     string // escaped, as sent on the wire
	RawQuery string
	Body     string
	Header   http.Header
}

// mockAPI is an httpmock transport whose one responder records every request
// and answers with the next canned response (the last one repeats).
type mockAPI struct {
	*httpmock.MockTransport
	mu    sync.Mutex
	reqs  []recorded
	reply func(r *http.Request) (*http.Response, error)
}

func (m *mockAPI) requests() []recorded {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]recorded(nil), m.reqs...)
}

// newMock returns a client on https://api.example.test/v1 whose transport is an
// httpmock.MockTransport, and the recorder. reply answers every request.
func newMock(t *testing.T, reply func(r *http.Request) (*http.Response, error), opts ...convo.Option) (*convo.Client, *mockAPI) {
	t.Helper()
	m := &mockAPI{MockTransport: httpmock.NewMockTransport(), reply: reply}
	m.RegisterNoResponder(func(r *http.Request) (*http.Response, error) {
		var body []byte
		if r.Body != nil {
			body, _ = io.ReadAll(r.Body)
		}
		m.mu.Lock()
		m.reqs = append(m.reqs, recorded{
			Method: r.Method, Host: r.URL.Host, Path: r.URL.EscapedPath(),
			RawQuery: r.URL.RawQuery, Body: string(body), Header: r.Header.Clone(),
		})
		m.mu.Unlock()
		if m.reply == nil {
			return nil, errors.New("mockAPI: no reply configured")
		}
		return m.reply(r)
	})
	base := []convo.Option{
		convo.WithAPIKey(testKey),
		convo.WithBaseURL(testBase),
		convo.WithHTTPClient(&http.Client{Transport: oascheck.Transport(m)}),
		convo.WithRetryWait(0, 0),
	}
	c, err := convo.NewClient(append(base, opts...)...)
	require.NoError(t, err)
	return c, m
}

// jsonResp answers with status and a JSON body.
func jsonResp(status int, body string) func(*http.Request) (*http.Response, error) {
	return func(*http.Request) (*http.Response, error) {
		r := httpmock.NewStringResponse(status, body)
		r.Header.Set("Content-Type", "application/json")
		return r, nil
	}
}

// ok wraps data in the success envelope of spec §2.1.
// testTime is testTS as a time: the service's clock in canned answers, so
// that times the service issues (expires_at) are set against it, not against
// the machine's date.
var testTime, _ = time.Parse(time.RFC3339Nano, testTS)

func ok(data string) string {
	return `{"success":true,"data":` + data + `,"timestamp":"` + testTS + `"}`
}

// apiErr describes an error answer of spec §7.
type apiErr struct {
	status   int
	code     convo.ErrorCode
	message  string
	details  string // raw JSON or ""
	sentinel error
}

// errBody writes the error envelope of spec §7 for a request made with method
// on apiPath (relative to /api/v1, as the server reports it).
func errBody(e apiErr, method, apiPath, errorID string) string {
	details := ""
	if e.details != "" {
		details = `,"details":` + e.details
	}
	return fmt.Sprintf(`{"success":false,"statusCode":%d,"timestamp":%q,"path":%q,"method":%q,`+
		`"message":{"error":%q,"message":%q%s},"errorId":%q}`,
		e.status, testTS, "/api/v1"+apiPath, method, e.code, e.message, details, errorID)
}

// Errors every endpoint can answer (spec §4: 401 and 429).
var (
	errUnauthorized = apiErr{401, convo.CodeUnauthorized, "Invalid or missing API key.", "", convo.ErrUnauthorized}
	errRateLimited  = apiErr{429, convo.CodeRateLimited, "Too many requests.", "", convo.ErrRateLimited}
)

// allSentinels are checked so that an error matches its own sentinel and no other.
var allSentinels = []error{
	convo.ErrInvalidParam, convo.ErrMissingParam, convo.ErrInvalidBucket, convo.ErrUnauthorized,
	convo.ErrConversationNotFound, convo.ErrContactNotFound, convo.ErrChannelNotFound,
	convo.ErrContactExists, convo.ErrRateLimited, convo.ErrCancelFailed,
}

// runErrorCases calls call once per error answer and checks the typed error:
// status, code, message, errorId, path (with /api/v1), method, timestamp and
// the sentinel (and no other sentinel).
func runErrorCases(t *testing.T, method, apiPath string, call func(context.Context, *convo.Client) error, cases []apiErr) {
	t.Helper()
	for i, e := range cases {
		t.Run(string(e.code), func(t *testing.T) {
			errorID := fmt.Sprintf("ERR-K3J9QX2%d-7ZP%d", i, i)
			body := errBody(e, method, apiPath, errorID)
			reply := func(*http.Request) (*http.Response, error) {
				r := httpmock.NewStringResponse(e.status, body)
				r.Header.Set("Content-Type", "application/json")
				if e.status == http.StatusTooManyRequests {
					r.Header.Set("Retry-After", "120") // above the 30s cap: no retry, typed error at once
				}
				return r, nil
			}
			c, m := newMock(t, reply)
			err := call(context.Background(), c)
			require.Error(t, err)

			var ae *convo.Error
			require.True(t, errors.As(err, &ae), "want *convo.Error, got %T: %v", err, err)
			assert.Equal(t, e.status, ae.StatusCode)
			assert.Equal(t, e.code, ae.Code)
			assert.Equal(t, e.message, ae.Message)
			assert.Equal(t, errorID, ae.ErrorID)
			assert.Equal(t, "/api/v1"+apiPath, ae.Path)
			assert.Equal(t, method, ae.Method)
			assert.True(t, ae.Timestamp.Equal(time.Date(2026, 11, 22, 10, 4, 5, 123e6, time.UTC)), "timestamp %v", ae.Timestamp)
			if e.details == "" {
				assert.Nil(t, ae.Details)
			} else {
				assert.JSONEq(t, e.details, string(ae.Details))
			}
			if e.status == http.StatusTooManyRequests {
				assert.Equal(t, 120*time.Second, ae.RetryAfter)
			}
			assert.Contains(t, err.Error(), string(e.code))
			assert.Contains(t, err.Error(), errorID)
			for _, s := range allSentinels {
				assert.Equal(t, s == e.sentinel, errors.Is(err, s), "errors.Is(err, %v)", s)
			}
			// Client errors and 500 CANCEL_FAILED are not retried; neither is
			// a 429 whose Retry-After exceeds the cap.
			assert.Len(t, m.requests(), 1)
		})
	}
}

// wireCase is a golden wire test: what one call must send, and what it must
// make of the answer.
type wireCase struct {
	name   string
	call   func(context.Context, *convo.Client) (any, error)
	method string
	path   string // escaped path, as on the wire
	query  string // exact raw query ("" for none)
	body   string // exact JSON body ("" for none)
	status int    // default 200
	resp   string // response body
	check  func(t *testing.T, got any)
}

func runWireCases(t *testing.T, cases []wireCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			status := tc.status
			if status == 0 {
				status = http.StatusOK
			}
			c, m := newMock(t, jsonResp(status, tc.resp))
			got, err := tc.call(context.Background(), c)
			require.NoError(t, err)

			reqs := m.requests()
			require.Len(t, reqs, 1)
			r := reqs[0]
			assert.Equal(t, tc.method, r.Method)
			assert.Equal(t, "api.example.test", r.Host)
			assert.Equal(t, tc.path, r.Path)
			assert.Equal(t, tc.query, r.RawQuery)
			assert.Equal(t, tc.body, r.Body)
			assertAPIHeaders(t, r.Header, tc.body != "")
			if tc.check != nil {
				tc.check(t, got)
			}
		})
	}
}

// assertAPIHeaders checks the headers every API call carries (spec §5, D3).
func assertAPIHeaders(t *testing.T, h http.Header, hasBody bool) {
	t.Helper()
	assert.Equal(t, "Bearer "+testKey, h.Get("Authorization"))
	assert.Empty(t, h.Values("x-api-key"))
	assert.Equal(t, "application/json", h.Get("Accept"))
	assert.True(t, strings.HasPrefix(h.Get("User-Agent"), "convo-go/"), h.Get("User-Agent"))
	if hasBody {
		assert.Equal(t, "application/json", h.Get("Content-Type"))
	} else {
		assert.Empty(t, h.Get("Content-Type"))
	}
}

// ts parses an RFC 3339 time for expectations.
func ts(t *testing.T, s string) time.Time {
	t.Helper()
	v, err := time.Parse(time.RFC3339Nano, s)
	require.NoError(t, err)
	return v
}

// ---- the canned server behind the runnable examples ----

// Canned answers, written from the spec's tables (§2.2–§2.7) and DESIGN D4–D9.
const (
	exChannels = `{"items":[
	 {"id":"3f9a7c1e-0b4d-4e2a-9c61-5d8e2b7a1f00","channel":"chatapp","display_name":"Support BR","provider_identifier":"109876543210","status":"connected",
	  "capabilities":{"message_types":["text","image","document","audio","video"],"max_text_length":4096,"max_caption_length":null,"session_window_hours":24,"requires_template_outside_window":true}},
	 {"id":"8b2e4d6f-1a3c-4b5d-8e7f-9a0b1c2d3e4f","channel":"botapp","display_name":"Bot","provider_identifier":"@acme_bot","status":"connected",
	  "capabilities":{"message_types":["text","image"],"max_text_length":4096,"max_caption_length":1024,"session_window_hours":null,"requires_template_outside_window":false}}]}`
	exConversationsPage1 = `{"items":[
	 {"id":"c-1","contact_id":"p-1","channel":"chatapp","channel_account_id":"3f9a7c1e-0b4d-4e2a-9c61-5d8e2b7a1f00","channel_identifier":"5511987654321","status":"open","assigned":false,"unread_count":2,"last_inbound_at":"2026-11-22T09:00:00.000Z","last_message_at":"2026-11-22T09:00:00.000Z","created_at":"2026-11-20T08:00:00.000Z"},
	 {"id":"c-2","contact_id":"p-2","channel":"botapp","channel_account_id":"8b2e4d6f-1a3c-4b5d-8e7f-9a0b1c2d3e4f","channel_identifier":"@maria","status":"open","assigned":true,"unread_count":0,"last_inbound_at":null,"last_message_at":"2026-11-21T18:30:00.000Z","created_at":"2026-11-21T18:30:00.000Z"}],
	 "next_cursor":"page-2"}`
	exConversationsPage2 = `{"items":[
	 {"id":"c-3","contact_id":"p-3","channel":"webchat","channel_account_id":"w-1","channel_identifier":"visitor-77","status":"open","assigned":false,"unread_count":1,"last_inbound_at":"2026-11-21T12:00:00.000Z","last_message_at":"2026-11-21T12:00:00.000Z","created_at":"2026-11-21T12:00:00.000Z"}],
	 "next_cursor":null}`
	exMessages = `{"items":[
	 {"message_id":"m-3","direction":"outbound","type":"text","status":"read","text":"Sure, sending it now.","media":null,"reactions":[],"sent_at":"2026-11-22T09:05:00.000Z","delivered_at":"2026-11-22T09:05:01.000Z","read_at":"2026-11-22T09:06:00.000Z","failure_reason":null,"raw":null},
	 {"message_id":"m-2","direction":"inbound","type":"image","status":null,"text":"my receipt","media":{"media_id":"med-1","media_status":"available","mime_type":"image/jpeg","file_size":12,"filename":"receipt.jpg"},"reactions":[{"emoji":"👍","direction":"outbound","reacted_at":"2026-11-22T09:04:00.000Z"}],"sent_at":"2026-11-22T09:03:00.000Z","delivered_at":null,"read_at":null,"failure_reason":null,"raw":null},
	 {"message_id":"m-1","direction":"inbound","type":"audio","status":null,"text":null,"media":{"media_id":null,"media_status":"unknown","mime_type":null,"file_size":null,"filename":null},"reactions":[],"sent_at":"2026-10-01T08:00:00.000Z","delivered_at":null,"read_at":null,"failure_reason":null,"raw":null}],
	 "next_cursor":null,"window":{"recent_window_days":30,"since":"2026-10-23T10:04:05.123Z"}}`
	exAnomalies = `{"window":{"threshold_hours":4,"ceiling_hours_by_channel":{"chatapp":24,"sms":24,"botapp":24,"webchat":24}},
	 "buckets":{"unanswered":{"count":1,"items":[{"conversation_id":"c-1","contact_id":"p-1","channel":"chatapp","channel_account_id":"3f9a7c1e-0b4d-4e2a-9c61-5d8e2b7a1f00","last_inbound_at":"2026-11-22T03:30:00.000Z","last_message_at":"2026-11-22T03:30:00.000Z","waiting_hours":6.5,"assigned":false,"unread_count":2}]},
	 "never_engaged":{"count":3},
	 "unassigned":{"count":1,"items":[{"conversation_id":"c-1","contact_id":"p-1","channel":"chatapp","channel_account_id":"3f9a7c1e-0b4d-4e2a-9c61-5d8e2b7a1f00","last_inbound_at":"2026-11-22T03:30:00.000Z","last_message_at":"2026-11-22T03:30:00.000Z","waiting_hours":6.5,"assigned":false,"unread_count":2}]}}}`
	exContact = `{"id":"p-1","phone_number":"5511987654321","name":"Ana Souza","email":null,"gender":null,"tag_names":"vip,lead"}`
	exFile    = "receipt data"
)

// newExampleServer starts a loopback server that serves canned, spec-shaped
// answers for the examples. Its base URL (ending in /v1) is srv.URL + "/v1".
// Every request must carry "Authorization: Bearer example-key".
func newExampleServer() *httptest.Server {
	var srv *httptest.Server
	mux := http.NewServeMux()
	send := func(w http.ResponseWriter, status int, body string) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_, _ = io.WriteString(w, body)
	}
	api := func(pattern string, h func(w http.ResponseWriter, r *http.Request)) {
		mux.HandleFunc(pattern, func(w http.ResponseWriter, r *http.Request) {
			if r.Header.Get("Authorization") != "Bearer example-key" {
				send(w, 401, errBody(errUnauthorized, r.Method, strings.TrimPrefix(r.URL.Path, "/v1"), "ERR-3KQ8ZW1P-9XA2"))
				return
			}
			h(w, r)
		})
	}
	api("GET /v1/channels", func(w http.ResponseWriter, r *http.Request) { send(w, 200, ok(exChannels)) })
	api("GET /v1/conversations", func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("cursor") == "page-2" {
			send(w, 200, ok(exConversationsPage2))
			return
		}
		send(w, 200, ok(exConversationsPage1))
	})
	api("GET /v1/conversations/anomalies", func(w http.ResponseWriter, r *http.Request) { send(w, 200, ok(exAnomalies)) })
	api("GET /v1/conversations/{id}/messages", func(w http.ResponseWriter, r *http.Request) {
		if r.PathValue("id") != "c-1" {
			send(w, 404, errBody(apiErr{404, convo.CodeConversationNotFound, "Conversation not found", "", nil},
				"GET", "/conversations/"+r.PathValue("id")+"/messages", "ERR-7H2M4QZ1-B8C3"))
			return
		}
		send(w, 200, ok(exMessages))
	})
	api("GET /v1/attachments/{id}", func(w http.ResponseWriter, r *http.Request) {
		send(w, 200, ok(fmt.Sprintf(`{"media_id":"med-1","url":"%s/files/receipt.jpg?sig=abc","expires_at":"%s","mime_type":"image/jpeg","file_size":%d,"filename":"receipt.jpg"}`,
			srv.URL, testTime.Add(10*time.Minute).UTC().Format("2006-01-02T15:04:05.000Z"), len(exFile))))
	})
	mux.HandleFunc("GET /files/receipt.jpg", func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "" {
			http.Error(w, "no key expected here", http.StatusBadRequest)
			return
		}
		_, _ = io.WriteString(w, exFile)
	})
	api("GET /v1/chatapp/contacts/lookup", func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("phone_number") != "5511987654321" {
			send(w, 404, errBody(apiErr{404, convo.CodeContactNotFound, "Contact not found", "", nil},
				"GET", "/chatapp/contacts/lookup", "ERR-0P9L8K7J-6H5G"))
			return
		}
		send(w, 200, ok(exContact))
	})
	// An endpoint the spec does not show (D22), for the Client.Do example.
	api("GET /v1/chatapp/templates", func(w http.ResponseWriter, r *http.Request) {
		send(w, 200, ok(`{"items":[{"name":"order_update","language":"`+r.URL.Query().Get("language")+`"}]}`))
	})
	api("POST /v1/chatapp/sequences/cancel", func(w http.ResponseWriter, r *http.Request) {
		send(w, 200, ok(`{"canceled":true,"message":"Sequence canceled."}`))
	})
	srv = httptest.NewServer(mux)
	return srv
}
