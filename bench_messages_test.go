package convo_test

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strconv"
	"testing"

	convo "github.com/convoapi/convo-go"
)

const (
	benchPages    = 10_000
	benchPageSize = 100
	benchSample   = 10_000 // items between two heap samples
)

// benchPageParts pre-encodes a page of benchPageSize spec-shaped messages; only
// the cursor varies between pages.
func benchPageParts() (head, tail []byte) {
	var b bytes.Buffer
	b.WriteString(`{"success":true,"data":{"items":[`)
	for i := range benchPageSize {
		if i > 0 {
			b.WriteByte(',')
		}
		switch i % 4 {
		case 0:
			fmt.Fprintf(&b, `{"message_id":"wamid.HBgNNTUxMTk4NzY1NDMyMRUCABIYFjNFQjBDMTk%04d","direction":"inbound","type":"text","status":null,"text":"Hello, I would like to know the status of my order number %d, thanks!","media":null,"reactions":[],"sent_at":"2026-11-22T09:00:00.000Z","delivered_at":null,"read_at":null,"failure_reason":null,"raw":null}`, i, i)
		case 1:
			fmt.Fprintf(&b, `{"message_id":"wamid.HBgNNTUxMTk4NzY1NDMyMRUCABIYFjNFQjBDMTk%04d","direction":"outbound","type":"text","status":"read","text":"Sure! Your order is on its way and should arrive tomorrow.","media":null,"reactions":[{"emoji":"👍","direction":"inbound","reacted_at":"2026-11-22T09:01:00.000Z"}],"sent_at":"2026-11-22T09:00:30.000Z","delivered_at":"2026-11-22T09:00:31.000Z","read_at":"2026-11-22T09:00:40.000Z","failure_reason":null,"raw":{"kind":"text"}}`, i)
		case 2:
			fmt.Fprintf(&b, `{"message_id":"wamid.HBgNNTUxMTk4NzY1NDMyMRUCABIYFjNFQjBDMTk%04d","direction":"inbound","type":"image","status":null,"text":"receipt","media":{"media_id":"med-%04d","media_status":"available","mime_type":"image/jpeg","file_size":48213,"filename":"receipt.jpg"},"reactions":[],"sent_at":"2026-11-22T08:59:00.000Z","delivered_at":null,"read_at":null,"failure_reason":null,"raw":null}`, i, i)
		default:
			fmt.Fprintf(&b, `{"message_id":"wamid.HBgNNTUxMTk4NzY1NDMyMRUCABIYFjNFQjBDMTk%04d","direction":"inbound","type":"audio","status":null,"text":null,"media":{"media_id":null,"media_status":"unknown","mime_type":null,"file_size":null,"filename":null},"reactions":[],"sent_at":"2026-11-22T08:58:00.000Z","delivered_at":null,"read_at":null,"failure_reason":null,"raw":null}`, i)
		}
	}
	b.WriteString(`],"next_cursor":`)
	head = bytes.Clone(b.Bytes())
	tail = []byte(`,"window":{"recent_window_days":30,"since":"2026-10-23T10:04:05.123Z"}},"timestamp":"2026-11-22T10:04:05.123Z"}`)
	return head, tail
}

// BenchmarkMessagesAll1M iterates Messages.All over 1,000,000 messages (10,000
// pages of 100) served by a loopback server, and reports the peak heap in use
// sampled every 10,000 messages, against the size of one page: the iterator
// holds one page at a time, so the peak must not grow with the history.
//
//	go test -run '^$' -bench BenchmarkMessagesAll1M -benchmem -benchtime 1x .
func BenchmarkMessagesAll1M(b *testing.B) {
	head, tail := benchPageParts()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := 0
		if c := r.URL.Query().Get("cursor"); c != "" {
			n, _ = strconv.Atoi(c)
		}
		next := []byte("null")
		if n+1 < benchPages {
			next = strconv.AppendQuote(nil, strconv.Itoa(n+1))
		}
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Length", strconv.Itoa(len(head)+len(next)+len(tail)))
		_, _ = w.Write(head)
		_, _ = w.Write(next)
		_, _ = w.Write(tail)
	}))
	defer srv.Close()
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	client, err := convo.NewClient(convo.WithAPIKey(testKey), convo.WithBaseURL(srv.URL+"/v1"),
		convo.WithHTTPClient(&http.Client{Transport: tr}))
	if err != nil {
		b.Fatal(err)
	}
	pageBytes := len(head) + len(`"9999"`) + len(tail)

	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	baseline, baseLive := ms.HeapInuse, ms.HeapAlloc
	var peak, peakLive, firstLive, lastLive uint64

	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		count := 0
		for msg, err := range client.Messages.All(context.Background(), "conv-1", &convo.ListMessagesParams{Limit: benchPageSize}) {
			if err != nil {
				b.Fatal(err)
			}
			if msg.MessageID == "" {
				b.Fatal("empty message")
			}
			count++
			if count%benchSample == 0 {
				// HeapInuse as the program runs (garbage included: the
				// collector lets it reach its 4 MiB minimum target before
				// collecting), then the live heap after a forced collection,
				// while the iterator holds its current page.
				runtime.ReadMemStats(&ms)
				peak = max(peak, ms.HeapInuse)
				b.StopTimer()
				runtime.GC()
				runtime.ReadMemStats(&ms)
				peakLive = max(peakLive, ms.HeapAlloc)
				if firstLive == 0 {
					firstLive = ms.HeapAlloc
				}
				lastLive = ms.HeapAlloc
				b.StartTimer()
			}
		}
		if count != benchPages*benchPageSize {
			b.Fatalf("got %d messages, want %d", count, benchPages*benchPageSize)
		}
	}
	b.StopTimer()
	// The same measure once the iterator is gone (two collections empty the
	// body-buffer pool too): what remains is the fixed cost of the client, the
	// in-process server and their idle connection. The difference is what the
	// iteration itself holds.
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(&ms)
	liveAfter := ms.HeapAlloc

	b.ReportMetric(float64(peak), "peak-heap-bytes")
	b.ReportMetric(float64(baseline), "baseline-heap-bytes")
	b.ReportMetric(float64(pageBytes), "page-bytes")
	b.ReportMetric(float64(peakLive), "peak-live-heap-bytes")
	b.ReportMetric(float64(int64(peakLive)-int64(baseLive))/float64(pageBytes), "live-growth-pages")
	b.ReportMetric(float64(liveAfter), "live-after-bytes")
	b.ReportMetric(float64(int64(peakLive)-int64(liveAfter))/float64(pageBytes), "held-by-iteration-pages")
	b.ReportMetric(float64(firstLive), "live-at-10k-bytes")
	b.ReportMetric(float64(lastLive), "live-at-1M-bytes")
	b.ReportMetric(float64(benchPages*benchPageSize), "messages/op")
}
