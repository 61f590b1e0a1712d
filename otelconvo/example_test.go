package otelconvo_test

import (
	"context"
	"fmt"
	"log"
	"net/http"
	"time"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	convo "github.com/convoapi/convo-go"
	"github.com/convoapi/convo-go/fake"
	"github.com/convoapi/convo-go/otelconvo"
)

// The client's calls become spans of the program's tracer provider: here an
// in-memory recorder; in a service, the provider that exports to its
// collector (or none, and the global one is used). A call that is retried
// once has two attempt spans under its call span, and the wait as an event.
func ExampleOptions() {
	s := fake.NewServer()
	defer s.Close()
	s.AddFault(fake.Fault{Path: "/channels", Status: http.StatusServiceUnavailable, Times: 1})

	spans := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(spans))
	defer func() { _ = tp.Shutdown(context.Background()) }()

	opts := otelconvo.Options(otelconvo.WithTracerProvider(tp))
	client, err := convo.NewClient(append(opts, convo.WithAPIKey(s.APIKey()), convo.WithBaseURL(s.URL()),
		convo.WithRetryWait(time.Millisecond, time.Millisecond))...) // short backoff, for the example
	if err != nil {
		log.Fatal(err)
	}
	if _, err := client.Channels.List(context.Background()); err != nil {
		log.Fatal(err)
	}
	for _, span := range spans.Ended() {
		kind := "attempt"
		if !span.Parent().IsValid() {
			kind = "call"
		}
		fmt.Println(kind, span.Name(), "events:", len(span.Events()))
	}
	// Output:
	// attempt GET /channels events: 0
	// attempt GET /channels events: 0
	// call GET /channels events: 1
}
