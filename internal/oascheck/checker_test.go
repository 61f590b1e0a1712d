package oascheck_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/convoapi/convo-go/internal/oascheck"
)

const (
	okMessages = `{"success":true,"timestamp":"2026-11-22T10:00:00.000Z","data":{"items":[` +
		`{"message_id":"m1","direction":"inbound","type":"image","status":null,"text":null,` +
		`"media":{"media_id":null,"media_status":"unknown","mime_type":"image/png","file_size":FILESIZE,"filename":null},` +
		`"reactions":REACTIONS,"sent_at":"2026-11-22T09:00:00.000Z","delivered_at":null,"read_at":null,"failure_reason":null,"raw":null}],` +
		`"next_cursor":null,"window":{"recent_window_days":30,"since":"2026-10-23T10:00:00.000Z"}}}`
	badLimit = `{"success":false,"statusCode":400,"timestamp":"2026-11-22T10:00:00.000Z","path":"/api/v1/conversations/c1/messages",` +
		`"method":"GET","message":{"error":"INVALID_PARAM","message":"limit must be an integer from 1 to 100"},"errorId":"ERR-ABCDEFGH-1234"}`
)

// TestCheckerNamesTheField runs canned answers through the middleware: a
// right answer passes, a broken field is reported with its path and value,
// a request the document refuses counts apart when it is refused, and a
// route the document lacks must not succeed.
func TestCheckerNamesTheField(t *testing.T) {
	messages := func(fileSize, reactions string) string {
		return strings.NewReplacer("FILESIZE", fileSize, "REACTIONS", reactions).Replace(okMessages)
	}
	cases := []struct {
		name, path string
		status     int
		body       string
		mismatch   string // "" for none
		refused    int
	}{
		{"valid", "/v1/conversations/c1/messages?limit=5", 200, messages("null", "[]"), "", 0},
		{"file_size as a string", "/v1/conversations/c1/messages", 200, messages(`"12"`, "[]"), `field /data/items/0/media/file_size = "12": value must be an integer`, 0},
		{"reactions null", "/api/v1/conversations/c1/messages", 200, messages("12", "null"), "field /data/items/0/reactions = null", 0},
		{"malformed on purpose, refused", "/v1/conversations/c1/messages?limit=0", 400, badLimit, "", 1},
		{"malformed but accepted", "/v1/conversations/c1/messages?limit=0", 200, messages("1", "[]"), "parameter query limit", 0},
		{"undocumented route served", "/v1/templates", 200, `{"success":true}`, "on a route the document does not have", 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, err := oascheck.New()
			require.NoError(t, err)
			h := c.Middleware(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(tc.status)
				_, _ = w.Write([]byte(tc.body))
			}))
			req := httptest.NewRequest(http.MethodGet, tc.path, nil)
			req.Header.Set("Authorization", "Bearer k")
			h.ServeHTTP(httptest.NewRecorder(), req)

			st := c.Stats()
			if tc.mismatch == "" {
				assert.Empty(t, st.Mismatches)
			} else if assert.Len(t, st.Mismatches, 1) {
				assert.Contains(t, st.Mismatches[0], tc.mismatch)
			}
			assert.Equal(t, tc.refused, st.Refused)
		})
	}
}
