package otelconvo_test

import (
	"net/http"
	"testing"
	"time"

	metricnoop "go.opentelemetry.io/otel/metric/noop"
	tracenoop "go.opentelemetry.io/otel/trace/noop"

	convo "github.com/convoapi/convo-go"
	"github.com/convoapi/convo-go/fake"
	"github.com/convoapi/convo-go/otelconvo"
)

// BenchmarkMessagesPage reads a page of 100 messages from the fake, in
// memory, without the adapter and with it on no-op providers, side by side:
// the adapter's overhead is the ratio of the two.
//
//	go test -run '^$' -bench . -benchmem ./...
func BenchmarkMessagesPage(b *testing.B) {
	s, err := fake.NewHandler(fake.WithRateLimit(0, 0), fake.WithSeed(fake.DemoSeed()))
	if err != nil {
		b.Fatal(err)
	}
	base := []convo.Option{convo.WithAPIKey(s.APIKey()), convo.WithBaseURL("http://127.0.0.1/v1"),
		convo.WithHTTPClient(&http.Client{Transport: handlerTransport{h: s.Handler()}})}
	plain, err := convo.NewClient(base...)
	if err != nil {
		b.Fatal(err)
	}
	convs, err := plain.Conversations.List(b.Context(), &convo.ListConversationsParams{Limit: 1})
	if err != nil {
		b.Fatal(err)
	}
	id, now := convs.Items[0].ID, s.Clock().Now()
	for i := range 100 {
		s.Company().Inbound(id, "Hello, I would like to know the status of my order, thanks!", now.Add(time.Duration(i-100)*time.Minute))
	}
	noop := otelconvo.Options(otelconvo.WithTracerProvider(tracenoop.NewTracerProvider()),
		otelconvo.WithMeterProvider(metricnoop.NewMeterProvider()))
	for _, bc := range []struct {
		name string
		opts []convo.Option
	}{
		{"without", base},
		{"noop-provider", append(base[:len(base):len(base)], noop...)},
	} {
		b.Run(bc.name, func(b *testing.B) {
			client, err := convo.NewClient(bc.opts...)
			if err != nil {
				b.Fatal(err)
			}
			params := &convo.ListMessagesParams{Limit: 100}
			b.ReportAllocs()
			for b.Loop() {
				page, err := client.Messages.List(b.Context(), id, params)
				if err != nil {
					b.Fatal(err)
				}
				if len(page.Items) != 100 {
					b.Fatalf("%d messages", len(page.Items))
				}
			}
		})
	}
}
