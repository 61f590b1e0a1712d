package testkit

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// echoSent answers 201 with what it was sent, as JSON.
func echoSent(w http.ResponseWriter, r *http.Request) {
	b, _ := io.ReadAll(r.Body)
	w.Header().Set("X-Seen", r.Method)
	w.WriteHeader(http.StatusCreated)
	_ = json.NewEncoder(w).Encode(map[string]any{
		"auth": r.Header.Get("Authorization"), "type": r.Header.Get("Content-Type"),
		"extra": r.Header.Get("X-Extra"), "body": string(b), "path": r.URL.Path,
	})
}

func TestSendSetsWhatItIsGivenAndReadsTheWholeAnswer(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(echoSent))
	defer srv.Close()
	for _, tc := range []struct {
		name, method, auth, body string
		headers                  []string
		want                     map[string]any
	}{
		{"bare GET", http.MethodGet, "", "", nil,
			map[string]any{"auth": "", "type": "", "extra": "", "body": "", "path": "/p"}},
		{"key and body", http.MethodPost, "Bearer k", `{"a":1}`, nil,
			map[string]any{"auth": "Bearer k", "type": "application/json", "extra": "", "body": `{"a":1}`, "path": "/p"}},
		{"extra header pairs", http.MethodGet, "Bearer k", "", []string{"X-Extra", "v", "X-Odd"},
			map[string]any{"auth": "Bearer k", "type": "", "extra": "v", "body": "", "path": "/p"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := Send(t, srv.Client(), tc.method, srv.URL+"/p", tc.auth, tc.body, tc.headers...)
			assert.Equal(t, http.StatusCreated, a.Status)
			assert.Equal(t, tc.method, a.Header.Get("X-Seen"))
			assert.Equal(t, tc.want, a.JSON(t))
		})
	}
}

// admin answers the admin inbox read with items.
func admin(items ...map[string]any) Admin {
	return func(method, path, body string) Answer {
		b, _ := json.Marshal(map[string]any{"items": items, "path": path})
		return Answer{Status: http.StatusOK, Body: b}
	}
}

func TestConversationOfAndInboxItemsReadTheAdminInbox(t *testing.T) {
	a := admin(
		map[string]any{"id": "c1", "contact_name": "Ana", "status": "open"},
		map[string]any{"id": "c2", "contact_name": "Bo", "status": "closed"},
	)
	assert.Equal(t, "c2", ConversationOf(t, a, "Bo"))
	items := InboxItems(t, a, "?status=all")
	require.Len(t, items, 2)
	assert.Equal(t, "c1", items["Ana/open"]["id"])
	assert.Equal(t, "c2", items["Bo/closed"]["id"])
}

func TestPrintedKeepsTheNameValueLines(t *testing.T) {
	out := "# convofake 1.0\nCONVO_BASE_URL=http://127.0.0.1:1/v1\nCONVO_API_KEY=k=v\n# try: curl\nnot a pair\n"
	assert.Equal(t, map[string]string{
		"CONVO_BASE_URL": "http://127.0.0.1:1/v1",
		"CONVO_API_KEY":  "k=v",
	}, Printed(out))
}

func TestUnansweredCountReadsTheReportWithTheKey(t *testing.T) {
	var asked []string
	api := func(path, key string) Answer {
		asked = append(asked, path+" "+key)
		return Answer{Status: http.StatusOK, Body: []byte(`{"data":{"buckets":{"unanswered":{"count":3}}}}`)}
	}
	assert.Equal(t, float64(3), UnansweredCount(t, api, "k"))
	assert.Equal(t, []string{"/v1/conversations/anomalies k"}, asked)
}
