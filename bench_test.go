package convo

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// messagePageJSON is a 100-message page, as the service would send it.
func messagePageJSON() []byte {
	var b strings.Builder
	b.WriteString(`{"success":true,"data":{"items":[`)
	for i := range 100 {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"message_id":"msg_%04d","direction":"inbound","type":"image","status":null,`+
			`"text":"Photo of the receipt number %d, please check","media":{"media_id":"med_%04d","media_status":"available",`+
			`"mime_type":"image/jpeg","file_size":48213,"filename":"receipt.jpg"},`+
			`"reactions":[{"emoji":"👍","direction":"outbound","reacted_at":"2026-11-22T10:05:00.000Z"}],`+
			`"sent_at":"2026-11-22T10:04:05.123Z","delivered_at":"2026-11-22T10:04:06.000Z","read_at":null,`+
			`"failure_reason":null,"raw":{"kind":"image","ref":"int-%d"}}`, i, i, i, i)
	}
	b.WriteString(`],"next_cursor":"Y3Vyc29yLTEwMA","window":{"recent_window_days":30,"since":"2026-10-23T10:04:05.123Z"}},"timestamp":"2026-11-22T10:04:05.123Z"}`)
	return []byte(b.String())
}

// BenchmarkDo compares the SDK's pipeline with a hand-written net/http call
// that decodes the same 100-message page from the same server, in one run:
//
//	go test -run '^$' -bench BenchmarkDo -benchmem -count 6 .
func BenchmarkDo(b *testing.B) {
	payload := messagePageJSON()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(payload)
	}))
	defer srv.Close()
	ctx := context.Background()

	b.Run("sdk", func(b *testing.B) {
		c, err := NewClient(WithAPIKey(testKey), WithBaseURL(srv.URL+"/v1"))
		if err != nil {
			b.Fatal(err)
		}
		b.SetBytes(int64(len(payload)))
		b.ReportAllocs()
		for b.Loop() {
			page, err := c.Messages.List(ctx, "conv-1", &ListMessagesParams{Limit: 100})
			if err != nil || len(page.Items) != 100 {
				b.Fatal(err)
			}
		}
	})

	b.Run("nethttp", func(b *testing.B) {
		hc := &http.Client{Transport: http.DefaultTransport}
		b.SetBytes(int64(len(payload)))
		b.ReportAllocs()
		for b.Loop() {
			req, err := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL+"/v1/conversations/conv-1/messages?limit=100", nil)
			if err != nil {
				b.Fatal(err)
			}
			req.Header.Set("Authorization", "Bearer "+testKey)
			req.Header.Set("Accept", "application/json")
			resp, err := hc.Do(req)
			if err != nil {
				b.Fatal(err)
			}
			var env struct {
				Success bool        `json:"success"`
				Data    MessagePage `json:"data"`
			}
			err = json.NewDecoder(resp.Body).Decode(&env)
			_, _ = io.Copy(io.Discard, resp.Body)
			_ = resp.Body.Close()
			if err != nil || resp.StatusCode != 200 || len(env.Data.Items) != 100 {
				b.Fatal(err)
			}
		}
	})
}
