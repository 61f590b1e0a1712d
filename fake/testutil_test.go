package fake_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
)

func stringsReader(s string) io.Reader {
	if s == "" {
		return nil
	}
	return strings.NewReader(s)
}

func drain(res *http.Response) (int64, error) { return io.Copy(io.Discard, res.Body) }

func contains(b []byte, sub string) bool { return bytes.Contains(b, []byte(sub)) }

func jsonUnmarshal(b []byte, v any) error { return json.Unmarshal(b, v) }
