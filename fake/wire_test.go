package fake_test

import (
	"bufio"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/convoapi/convo-go/fake"
)

// rawExchange writes raw to s on a fresh loopback connection, closes the
// write side when halfClose is set, and returns every byte the server sent
// until it closed the connection.
func rawExchange(t *testing.T, s *fake.Server, raw string, halfClose bool) string {
	t.Helper()
	u, err := url.Parse(s.URL())
	require.NoError(t, err)
	conn, err := net.Dial("tcp", u.Host)
	require.NoError(t, err)
	defer conn.Close()
	require.NoError(t, conn.SetDeadline(time.Now().Add(10*time.Second)))
	_, err = io.WriteString(conn, raw)
	require.NoError(t, err)
	if halfClose {
		require.NoError(t, conn.(*net.TCPConn).CloseWrite())
	}
	got, _ := io.ReadAll(conn) // a reset after the answer is fine: the answer was read
	return string(got)
}

// wireCase is one raw input and what must come back: an answer with status
// and error code, or (status 0) a closed connection without any answer.
type wireCase struct {
	name      string
	setup     func(t *testing.T, s *fake.Server)
	raw       string // %KEY% is replaced by the default key
	halfClose bool
	status    int
	code      string
	contains  string // a substring of the answer's body
}

func runWireCases(t *testing.T, cases []wireCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := newServer(t)
			seedBasic(t, s)
			if tc.setup != nil {
				tc.setup(t, s)
			}
			got := rawExchange(t, s, strings.ReplaceAll(tc.raw, "%KEY%", s.APIKey()), tc.halfClose)
			if tc.status == 0 {
				assert.Empty(t, got, "the connection must close without an answer")
				return
			}
			res, err := http.ReadResponse(bufio.NewReader(strings.NewReader(got)), nil)
			require.NoError(t, err, "answer: %q", got)
			body, _ := io.ReadAll(res.Body)
			require.Equal(t, tc.status, res.StatusCode, "%s", body)
			if tc.code != "" {
				var env struct {
					Success bool `json:"success"`
					Message struct {
						Error string `json:"error"`
					} `json:"message"`
				}
				require.NoError(t, json.Unmarshal(body, &env), "not an envelope: %q", body)
				assert.Equal(t, tc.code, env.Message.Error)
			}
			if tc.contains != "" {
				assert.Contains(t, string(body), tc.contains)
			}
		})
	}
}

// Raw inputs at the wire: every request ends in a well-formed envelope or a
// closed connection, never an empty 200.
func TestWireRawInputs(t *testing.T) {
	const post = "POST /v1/chatapp/sequences/cancel HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Api-Key: %KEY%\r\nContent-Type: application/json\r\n"
	runWireCases(t, []wireCase{
		{
			name: "body shorter than its Content-Length, then a half-close",
			raw:  post + "Content-Length: 100\r\n\r\n{\"phone_number\":", halfClose: true,
			status: 400, code: "INVALID_PARAM", contains: `"body could not be read whole`,
		},
		{
			name: "broken chunked encoding",
			raw:  post + "Transfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n", halfClose: true,
			status: 400, code: "INVALID_PARAM", contains: `"body could not be read whole`,
		},
		{
			name: "latency fault cut short by a half-close",
			setup: func(_ *testing.T, s *fake.Server) {
				s.AddFault(fake.Fault{Path: "/channels", Latency: 30 * time.Second})
			},
			raw: "GET /v1/channels HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Api-Key: %KEY%\r\n\r\n", halfClose: true,
			status: 0,
		},
		{
			name:   "a well-formed request still answers",
			raw:    post + "Content-Length: 33\r\nConnection: close\r\n\r\n{\"phone_number\":\"5511987654321\"}\n",
			status: 200, contains: `"canceled":false`,
		},
		{
			name: "oversized body without a key is 401, unread",
			raw:  "POST /v1/chatapp/contacts HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 2000000\r\nConnection: close\r\n\r\n{", halfClose: true,
			status: 401, code: "UNAUTHORIZED",
		},
	})
}

// The attachment URL's host is the server's own, never the request's Host
// header: a client naming another host must not steer the download there.
func TestAttachmentHostIsNeverTheHostHeader(t *testing.T) {
	s := newServer(t)
	b := seedBasic(t, s)
	conv := b.co.AddConversation(fake.Conversation{ContactID: b.ana})
	m := b.co.AddMessage(conv, fake.Message{Media: &fake.Media{MimeType: "image/png", Data: []byte("png")}})
	raw := "GET /v1/attachments/" + s.MediaID(m) + " HTTP/1.1\r\nHost: evil.example\r\nX-Api-Key: " + s.APIKey() + "\r\nConnection: close\r\n\r\n"
	got := rawExchange(t, s, raw, false)
	assert.Contains(t, got, `"url":"`+strings.TrimSuffix(s.URL(), "/v1")+"/_files/")
	assert.NotContains(t, got, "evil.example")

}
