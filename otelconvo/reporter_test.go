package otelconvo

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"testing"

	"github.com/stretchr/testify/assert"
	"go.opentelemetry.io/otel/attribute"

	convo "github.com/convoapi/convo-go"
)

type timeoutError struct{}

func (timeoutError) Error() string   { return "i/o timeout" }
func (timeoutError) Timeout() bool   { return true }
func (timeoutError) Temporary() bool { return true }

func TestErrorType(t *testing.T) {
	tests := []struct {
		err  error
		want string
	}{
		{&convo.Error{StatusCode: 404, Code: convo.CodeConversationNotFound}, "404"},
		{fmt.Errorf("wrapped: %w", &convo.Error{StatusCode: 429}), "429"},
		{context.DeadlineExceeded, "timeout"},
		{&url.Error{Op: "Get", URL: "http://127.0.0.1/v1/channels", Err: timeoutError{}}, "timeout"},
		{context.Canceled, "canceled"},
		{&url.Error{Op: "Get", URL: "http://127.0.0.1/v1/channels", Err: errors.New("connection refused")}, "*url.Error"},
		{errors.New("other"), "*errors.errorString"},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, errorType(tt.err), "%v", tt.err)
	}
}

func TestServerAttrs(t *testing.T) {
	tests := []struct {
		url  string
		want []attribute.KeyValue
	}{
		{"https://api.example.com/v1/conversations/abc/messages?cursor=x",
			[]attribute.KeyValue{attribute.String("server.address", "api.example.com"), attribute.Int("server.port", 443)}},
		{"http://127.0.0.1:8080/v1/channels",
			[]attribute.KeyValue{attribute.String("server.address", "127.0.0.1"), attribute.Int("server.port", 8080)}},
		{"http://[::1]/v1/channels",
			[]attribute.KeyValue{attribute.String("server.address", "::1"), attribute.Int("server.port", 80)}},
		{"unix://sock/v1/channels", []attribute.KeyValue{attribute.String("server.address", "sock")}},
	}
	for _, tt := range tests {
		req, err := http.NewRequest(http.MethodGet, tt.url, nil)
		assert.NoError(t, err)
		assert.Equal(t, tt.want, serverAttrs(req), tt.url)
	}
}

func TestOutcomeAttrs(t *testing.T) {
	tests := []struct {
		name string
		resp *http.Response
		err  error
		want []attribute.KeyValue
	}{
		{"ok", &http.Response{StatusCode: 200}, nil, []attribute.KeyValue{attribute.Int("http.response.status_code", 200)}},
		{"error answer", &http.Response{StatusCode: 503}, nil,
			[]attribute.KeyValue{attribute.Int("http.response.status_code", 503), attribute.String("error.type", "503")}},
		{"transport error", nil, context.DeadlineExceeded, []attribute.KeyValue{attribute.String("error.type", "timeout")}},
		{"nothing", nil, nil, nil},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, outcomeAttrs(tt.resp, tt.err), tt.name)
	}
}
