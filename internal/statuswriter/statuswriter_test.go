package statuswriter

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestWriterRecordsTheFirstStatus(t *testing.T) {
	tests := []struct {
		name string
		do   func(w http.ResponseWriter)
		want int
	}{
		{"explicit", func(w http.ResponseWriter) { w.WriteHeader(404); w.WriteHeader(500) }, 404},
		{"implicit 200", func(w http.ResponseWriter) { _, _ = w.Write([]byte("x")) }, 200},
		{"nothing written", func(http.ResponseWriter) {}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := httptest.NewRecorder()
			w := &Writer{ResponseWriter: rec}
			tt.do(w)
			assert.Equal(t, tt.want, w.Status)
			assert.Same(t, rec, w.Unwrap())
		})
	}
}
