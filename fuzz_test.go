package convo

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/jarcoal/httpmock"
)

// FuzzResponses feeds arbitrary statuses and bodies through the whole pipeline
// of a typed call: nothing may panic, every failure is typed, and error texts
// stay bounded and free of the key. The seeds run in every `go test`; explore
// with: go test -run '^$' -fuzz FuzzResponses -fuzztime 30s .
func FuzzResponses(f *testing.F) {
	f.Add(200, okJSON(`{"items":[{"message_id":"m","media":{"media_id":null,"media_status":"unknown"}}],"next_cursor":null,"window":{"recent_window_days":30,"since":"2026-10-23T10:00:00.000Z"}}`))
	f.Add(404, errJSON(404, "CONVERSATION_NOT_FOUND", "Conversation not found"))
	f.Add(502, "<html>bad gateway</html>")
	f.Add(200, `{"success":true,"data":{"items":"not a list"}}`)
	f.Add(200, `{"success":true,"data":null}`)
	f.Add(400, `{"success":false,"message":{"error":"INVALID_BUCKET","details":[1]}}`)
	f.Add(200, `{"success":false}`)
	f.Add(204, ``)
	f.Add(429, `{"success":false,"statusCode":429,"message":{"error":"RATE_LIMITED","message":"`+testKey+`"}}`)
	f.Fuzz(func(t *testing.T, status int, body string) {
		if status < 100 || status > 599 {
			status = 200 + (status%400+400)%400
		}
		mock := httpmock.NewMockTransport()
		mock.RegisterNoResponder(httpmock.NewStringResponder(status, body))
		c, err := NewClient(WithAPIKey(testKey), WithBaseURL(mockBase), WithHTTPClient(&http.Client{Transport: mock}), WithMaxRetries(0))
		if err != nil {
			t.Fatal(err)
		}
		page, err := c.Messages.List(context.Background(), "conv", nil)
		if err == nil {
			if page == nil {
				t.Fatal("nil page without error")
			}
			return
		}
		var apiErr *Error
		if !errors.As(err, &apiErr) {
			t.Fatalf("untyped error %T: %v", err, err)
		}
		if apiErr.StatusCode != status && status/100 != 2 {
			t.Fatalf("status %d reported as %d", status, apiErr.StatusCode)
		}
		msg := err.Error()
		if strings.Contains(msg, testKey) {
			t.Fatal("key in error text")
		}
		if len(apiErr.Body) > excerptLimit+3 {
			t.Fatalf("excerpt of %d bytes", len(apiErr.Body))
		}
		if apiErr.Code == CodeInvalidBucket {
			apiErr.InvalidBucket() // must not panic on any details
		}
	})
}
