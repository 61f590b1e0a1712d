package otelconvo_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
	tracenoop "go.opentelemetry.io/otel/trace/noop"

	convo "github.com/convoapi/convo-go"
	"github.com/convoapi/convo-go/fake"
	"github.com/convoapi/convo-go/internal/testkit"
	"github.com/convoapi/convo-go/otelconvo"
)

const messagesRoute = "GET /conversations/{conversation_id}/messages"

// handlerTransport serves each request with a handler, in memory and on the
// caller's goroutine, so that a synctest bubble controls its time.
type handlerTransport struct{ h http.Handler }

func (m handlerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	rec := httptest.NewRecorder()
	m.h.ServeHTTP(rec, r)
	return rec.Result(), nil
}

// rig is a fake, a client that reports to an in-memory span recorder and a
// manual metric reader, and a plain client for setting up.
type rig struct {
	fake    *fake.Server
	spans   *tracetest.SpanRecorder
	metrics *sdkmetric.ManualReader
	client  *convo.Client
	plain   *convo.Client
}

func newRig(t *testing.T, fakeOpts []fake.Option, otelOpts []otelconvo.Option, opts ...convo.Option) *rig {
	t.Helper()
	s, err := fake.NewHandler(append([]fake.Option{fake.WithRateLimit(0, 0), fake.WithSeed(fake.DemoSeed())}, fakeOpts...)...)
	require.NoError(t, err)
	r := &rig{fake: s, spans: tracetest.NewSpanRecorder(), metrics: sdkmetric.NewManualReader()}
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(r.spans))
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(r.metrics))
	base := []convo.Option{convo.WithAPIKey(s.APIKey()), convo.WithBaseURL("http://127.0.0.1/v1"),
		convo.WithHTTPClient(&http.Client{Transport: handlerTransport{h: s.Handler()}}), convo.WithRateLimiter(convo.NoRateLimiter())}
	r.plain, err = convo.NewClient(base...)
	require.NoError(t, err)
	otelOpts = append([]otelconvo.Option{otelconvo.WithTracerProvider(tp), otelconvo.WithMeterProvider(mp)}, otelOpts...)
	r.client, err = convo.NewClient(slices.Concat(base, otelconvo.Options(otelOpts...), opts)...)
	require.NoError(t, err)
	return r
}

// conversation is the id of a conversation of the demo seed, found with
// the plain client so that nothing is recorded.
func (r *rig) conversation(t *testing.T) string {
	page, err := r.plain.Conversations.List(t.Context(), &convo.ListConversationsParams{Limit: 1})
	require.NoError(t, err)
	require.NotEmpty(t, page.Items)
	return page.Items[0].ID
}

// split returns the one call span among the ended spans and its children,
// in order.
func split(t *testing.T, spans []sdktrace.ReadOnlySpan) (call sdktrace.ReadOnlySpan, attempts []sdktrace.ReadOnlySpan) {
	t.Helper()
	for _, s := range spans {
		if !s.Parent().IsValid() {
			require.Nil(t, call, "two call spans")
			call = s
		}
	}
	require.NotNil(t, call)
	for _, s := range spans {
		if s.Parent().SpanID() == call.SpanContext().SpanID() {
			attempts = append(attempts, s)
		}
	}
	return call, attempts
}

func attrs(kvs []attribute.KeyValue) map[string]any {
	m := map[string]any{}
	for _, kv := range kvs {
		m[string(kv.Key)] = kv.Value.AsInterface()
	}
	return m
}

// collect reads the metrics, by name.
func (r *rig) collect(t *testing.T) map[string]metricdata.Aggregation {
	var rm metricdata.ResourceMetrics
	require.NoError(t, r.metrics.Collect(context.Background(), &rm))
	out := map[string]metricdata.Aggregation{}
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			out[m.Name] = m.Data
		}
	}
	return out
}

// counts sums a counter by the given attribute.
func counts(t *testing.T, data metricdata.Aggregation, key attribute.Key) map[string]int64 {
	t.Helper()
	sum, ok := data.(metricdata.Sum[int64])
	require.True(t, ok, "%T", data)
	out := map[string]int64{}
	for _, dp := range sum.DataPoints {
		v, _ := dp.Attributes.Value(key)
		out[v.String()] += dp.Value
	}
	return out
}

// histogram returns a float histogram's data points.
func histogram(t *testing.T, data metricdata.Aggregation) []metricdata.HistogramDataPoint[float64] {
	t.Helper()
	h, ok := data.(metricdata.Histogram[float64])
	require.True(t, ok, "%T", data)
	return h.DataPoints
}

func TestTwo429sThenSuccess(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t, nil, nil)
		id := r.conversation(t)
		r.fake.AddFault(fake.Fault{Path: "/conversations/*/messages", Status: http.StatusTooManyRequests, RetryAfter: 2 * time.Second, Times: 2})

		_, err := r.client.Messages.List(t.Context(), id, nil)
		require.NoError(t, err)

		spans := r.spans.Ended()
		require.Len(t, spans, 4)
		call, attempts := split(t, spans)
		require.Len(t, attempts, 3)
		for _, s := range spans {
			assert.Equal(t, messagesRoute, s.Name())
			assert.Equal(t, trace.SpanKindClient, s.SpanKind())
		}
		assert.Equal(t, map[string]any{
			"http.request.method": "GET", "url.template": "/conversations/{conversation_id}/messages",
			"server.address": "127.0.0.1", "server.port": int64(80),
			"http.response.status_code": int64(200), "convo.attempts": int64(3),
		}, attrs(call.Attributes()))
		assert.Equal(t, codes.Unset, call.Status().Code)
		require.Len(t, call.Events(), 2)
		for _, e := range call.Events() {
			assert.Equal(t, otelconvo.EventWait, e.Name)
			assert.Equal(t, map[string]any{"convo.wait.reason": "retry", "convo.wait.duration": 2.0}, attrs(e.Attributes))
		}
		for i, want := range []int64{429, 429, 200} {
			a := attrs(attempts[i].Attributes())
			assert.Equal(t, int64(i+1), a["convo.attempt"])
			assert.Equal(t, want, a["http.response.status_code"])
			assert.Equal(t, "/conversations/{conversation_id}/messages", a["url.template"])
			if want == 429 {
				assert.Equal(t, "429", a["error.type"])
				assert.Equal(t, codes.Error, attempts[i].Status().Code)
			} else {
				assert.NotContains(t, a, "error.type")
				assert.Equal(t, int64(2), a["http.request.resend_count"])
			}
		}

		m := r.collect(t)
		assert.Equal(t, map[string]int64{"/conversations/{conversation_id}/messages": 2}, counts(t, m[otelconvo.MetricRateLimited], "url.template"))
		assert.Equal(t, map[string]int64{"/conversations/{conversation_id}/messages": 2}, counts(t, m[otelconvo.MetricRetries], "url.template"))
		byStatus := map[int64]uint64{}
		for _, dp := range histogram(t, m[otelconvo.MetricRequestDuration]) {
			status, _ := dp.Attributes.Value("http.response.status_code")
			route, _ := dp.Attributes.Value("url.template")
			method, _ := dp.Attributes.Value("http.request.method")
			assert.Equal(t, "/conversations/{conversation_id}/messages", route.AsString())
			assert.Equal(t, "GET", method.AsString())
			byStatus[status.AsInt64()] += dp.Count
		}
		assert.Equal(t, map[int64]uint64{429: 2, 200: 1}, byStatus)
	})
}

func TestErrorAnswer(t *testing.T) {
	tests := []struct {
		name  string
		call  func(ctx context.Context, c *convo.Client) error
		route string
		want  map[string]any
	}{
		{"404 of the service", func(ctx context.Context, c *convo.Client) error {
			_, err := c.Messages.List(ctx, "no-such-conversation", nil)
			return err
		}, messagesRoute, map[string]any{"error.type": "404", "convo.error.code": "CONVERSATION_NOT_FOUND", "http.response.status_code": int64(404)}},
		{"404 of an attachment", func(ctx context.Context, c *convo.Client) error {
			_, err := c.Attachments.Get(ctx, "no-such-media")
			return err
		}, "GET /attachments/{media_id}", map[string]any{"error.type": "404", "convo.error.code": "MEDIA_NOT_FOUND", "http.response.status_code": int64(404)}},
		{"cancelled", func(ctx context.Context, c *convo.Client) error {
			ctx, cancel := context.WithCancel(ctx)
			cancel()
			_, err := c.Channels.List(ctx)
			return err
		}, "GET /channels", map[string]any{"error.type": "canceled"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newRig(t, nil, nil)
			require.Error(t, tt.call(t.Context(), r.client))
			call, _ := split(t, r.spans.Ended())
			assert.Equal(t, tt.route, call.Name())
			assert.Equal(t, codes.Error, call.Status().Code)
			got := attrs(call.Attributes())
			for k, v := range tt.want {
				assert.Equal(t, v, got[k], k)
			}
			if code, ok := tt.want["convo.error.code"]; ok {
				assert.Equal(t, code, call.Status().Description)
				assert.Regexp(t, `^ERR-`, got["convo.error.id"])
			}
		})
	}
}

// heldRig is a rig whose client, with its default rate limiter, met a
// 429 asking for 3 s on /channels without retrying it: the limiter paces
// the client's next calls.
func heldRig(t *testing.T) *rig {
	r := newRig(t, nil, nil, convo.WithMaxRetries(0), convo.WithRateLimiter(convo.AdaptiveRate()))
	r.fake.AddFault(fake.Fault{Path: "/channels", Status: http.StatusTooManyRequests, RetryAfter: 3 * time.Second, Times: 1})
	_, err := r.client.Channels.List(t.Context())
	require.Error(t, err)
	return r
}

// A call waits for the client's rate limiter after another met a 429: the
// wait is one event of the waiting call, with the time it actually waited,
// and a measure of its own, not part of the request's duration.
func TestLimiterWait(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := heldRig(t)
		start := time.Now()
		_, err := r.client.Channels.List(t.Context())
		require.NoError(t, err)
		waited := time.Since(start).Seconds() // the rig's transport takes no time
		require.Positive(t, waited)

		var held sdktrace.ReadOnlySpan
		for _, s := range r.spans.Ended() {
			if !s.Parent().IsValid() && len(s.Events()) > 0 {
				held = s
			}
		}
		require.NotNil(t, held)
		require.Len(t, held.Events(), 1, "one event for one wait")
		assert.Equal(t, map[string]any{"convo.wait.reason": "rate_limit", "convo.wait.duration": waited}, attrs(held.Events()[0].Attributes))

		m := r.collect(t)
		hold := histogram(t, m[otelconvo.MetricRateLimitHold])
		require.Len(t, hold, 1)
		reason, _ := hold[0].Attributes.Value(otelconvo.AttrWaitReason)
		assert.Equal(t, "rate_limit", reason.AsString())
		assert.Equal(t, waited, hold[0].Sum)
		for _, dp := range histogram(t, m[otelconvo.MetricRequestDuration]) {
			assert.Zero(t, dp.Sum, "the wait is not the request's time")
		}
	})
}

// With a propagator, each attempt's request carries its span's context.
func TestPropagator(t *testing.T) {
	var seen []string
	r := newRig(t, []fake.Option{fake.WithHandlerMiddleware(func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
			seen = append(seen, req.Header.Get("Traceparent"))
			h.ServeHTTP(w, req)
		})
	})}, []otelconvo.Option{otelconvo.WithPropagator(propagation.TraceContext{})})
	_, err := r.client.Channels.List(t.Context())
	require.NoError(t, err)
	_, attempts := split(t, r.spans.Ended())
	require.Len(t, attempts, 1)
	sc := attempts[0].SpanContext()
	assert.Equal(t, []string{"00-" + sc.TraceID().String() + "-" + sc.SpanID().String() + "-01"}, seen)
}

// Without providers, the global ones record.
func TestGlobalProviders(t *testing.T) {
	spans := tracetest.NewSpanRecorder()
	otel.SetTracerProvider(sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(spans)))
	t.Cleanup(func() { otel.SetTracerProvider(tracenoop.NewTracerProvider()) })
	s := fake.NewServer()
	defer s.Close()
	c := s.Client(otelconvo.Options()...)
	_, err := c.Channels.List(t.Context())
	require.NoError(t, err)
	require.Len(t, spans.Ended(), 2)
	for _, span := range spans.Ended() {
		assert.Equal(t, "GET /channels", span.Name())
	}
}

// recorded is every string the spans and the metrics hold: names, status
// descriptions, attribute keys and values, event names and attributes.
func (r *rig) recorded(t *testing.T) []string {
	var out []string
	addSet := func(kvs ...attribute.KeyValue) {
		for _, kv := range kvs {
			out = append(out, string(kv.Key), kv.Value.String())
		}
	}
	for _, s := range r.spans.Ended() {
		out = append(out, s.Name(), s.Status().Description)
		addSet(s.Attributes()...)
		for _, e := range s.Events() {
			out = append(out, e.Name)
			addSet(e.Attributes...)
		}
	}
	var rm metricdata.ResourceMetrics
	require.NoError(t, r.metrics.Collect(context.Background(), &rm))
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			out = append(out, m.Name)
			switch data := m.Data.(type) {
			case metricdata.Sum[int64]:
				for _, dp := range data.DataPoints {
					addSet(dp.Attributes.ToSlice()...)
				}
			case metricdata.Histogram[float64]:
				for _, dp := range data.DataPoints {
					addSet(dp.Attributes.ToSlice()...)
				}
			default:
				t.Fatalf("%s: unexpected %T", m.Name, m.Data)
			}
		}
	}
	return out
}

// TestNoKeyInAnyAttribute sends the API key as an id and as a query value,
// and has the service echo it, in every escaping, in the message and the
// details of an error: no span and no metric holds it in any escaping.
func TestNoKeyInAnyAttribute(t *testing.T) {
	for _, key := range testkit.Keys {
		t.Run(key[:6], func(t *testing.T) {
			r := newRig(t, []fake.Option{fake.WithAPIKey(key)}, nil, convo.WithMaxRetries(0))
			id := r.conversation(t)
			_, err := r.client.Messages.List(t.Context(), key, nil)
			require.Error(t, err)
			_, err = r.client.Messages.List(t.Context(), id, &convo.ListMessagesParams{Cursor: key})
			require.Error(t, err)
			for _, esc := range testkit.Escapings {
				r.fake.AddFault(fake.Fault{Path: "/channels", Status: http.StatusBadRequest, Message: esc(key),
					Details: map[string]string{"key": esc(key)}, Times: 1})
				_, err = r.client.Channels.List(t.Context())
				require.Error(t, err)
			}
			recorded := r.recorded(t)
			require.NotEmpty(t, recorded)
			for name, esc := range testkit.Escapings {
				for _, s := range recorded {
					assert.NotContains(t, s, esc(key), name)
				}
			}
			for _, s := range r.spans.Ended() {
				assert.Contains(t, []string{messagesRoute, "GET /channels"}, s.Name())
			}
		})
	}
}

// A call the limiter would hold past its deadline sends nothing: its span
// says why, and no request is measured.
func TestHeldCallIsRefused(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := heldRig(t)
		// The limiter's next turn is further away than this call may wait.
		_, err := r.client.Channels.List(t.Context(), convo.WithTimeout(time.Millisecond))
		var apiErr *convo.Error
		require.ErrorAs(t, err, &apiErr)
		assert.True(t, apiErr.Held)
		spans := r.spans.Ended()
		require.Len(t, spans, 3, "the first call and its attempt, then the held call: no attempt sent")
		held := attrs(spans[2].Attributes())
		assert.NotContains(t, held, "http.response.status_code")
		assert.Equal(t, otelconvo.ErrorTypeHoldRefused, held["error.type"])
		assert.Equal(t, codes.Error, spans[2].Status().Code)
		m := r.collect(t)
		var measured uint64
		for _, dp := range histogram(t, m[otelconvo.MetricRequestDuration]) {
			measured += dp.Count
		}
		assert.Equal(t, uint64(1), measured, "only the request sent")
	})
}

// The service's announcement that a route retires is on the call's span.
func TestRetirementHeaders(t *testing.T) {
	r := newRig(t, []fake.Option{fake.WithHandlerMiddleware(func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
			w.Header().Set("Deprecation", "@1767225600")
			w.Header().Set("Sunset", "Thu, 31 Dec 2026 23:59:59 GMT")
			h.ServeHTTP(w, req)
		})
	})}, nil)
	_, err := r.client.Channels.List(t.Context())
	require.NoError(t, err)
	call, _ := split(t, r.spans.Ended())
	got := attrs(call.Attributes())
	assert.Equal(t, "@1767225600", got["convo.deprecation"])
	assert.Equal(t, "2026-12-31T23:59:59Z", got["convo.sunset"])
}

// One client's calls at once each have their own span and attempts.
func TestConcurrentCalls(t *testing.T) {
	r := newRig(t, nil, nil)
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			_, err := r.client.Channels.List(t.Context())
			assert.NoError(t, err)
		})
	}
	wg.Wait()
	spans := r.spans.Ended()
	require.Len(t, spans, 16)
	calls := map[trace.SpanID]int{}
	for _, s := range spans {
		if s.Parent().IsValid() {
			calls[s.Parent().SpanID()]++
		}
	}
	assert.Len(t, calls, 8)
	for _, n := range calls {
		assert.Equal(t, 1, n)
	}
}
