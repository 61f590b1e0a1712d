package convo_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"strings"
	"time"

	convo "github.com/convoapi/convo-go"
	"github.com/convoapi/convo-go/fake"
)

// The examples below get their channel accounts from Channels.List, as your
// code would: on the demo data, the support and sales numbers (chatapp) and
// the help bot (botapp).

func ExampleChannelAccount_Supports() {
	s := fake.NewServer(fake.WithSeed(fake.DemoSeed()))
	defer s.Close()
	accounts, err := s.Client().Channels.List(context.Background())
	if err != nil {
		log.Fatal(err)
	}
	bot := accounts[2] // the help bot
	// Check a capability before a send rather than waiting for the
	// service's UNSUPPORTED_CAPABILITY.
	for _, t := range []convo.MessageType{convo.MessageText, convo.MessageImage, convo.MessageType("hologram")} {
		fmt.Println(t, bot.Supports(t))
	}
	// Output:
	// text true
	// image true
	// hologram false
}

func ExampleChannelAccount_CheckText() {
	s := fake.NewServer(fake.WithSeed(fake.DemoSeed()))
	defer s.Close()
	accounts, err := s.Client().Channels.List(context.Background())
	if err != nil {
		log.Fatal(err)
	}
	line := accounts[0]

	fmt.Println(line.CheckText("Olá! Seu pedido saiu para entrega."))
	// Length counts Unicode code points, as the channels do.
	err = line.CheckText(strings.Repeat("é", line.Capabilities.MaxTextLength+1))
	var tooLong *convo.LengthError
	if errors.As(err, &tooLong) {
		fmt.Println(tooLong.Field, tooLong.Length, tooLong.Max)
	}
	// Output:
	// <nil>
	// text 4097 4096
}

func ExampleChannelAccount_CheckCaption() {
	s := fake.NewServer(fake.WithSeed(fake.DemoSeed()))
	defer s.Close()
	accounts, err := s.Client().Channels.List(context.Background())
	if err != nil {
		log.Fatal(err)
	}
	bot := accounts[2] // botapp states a caption limit; chatapp states none

	fmt.Println(bot.CheckCaption("Your receipt"))
	err = bot.CheckCaption(strings.Repeat("x", 2000))
	var tooLong *convo.LengthError
	fmt.Println(errors.As(err, &tooLong), tooLong.Field, tooLong.Max)
	// Output:
	// <nil>
	// true caption 1024
}

func ExampleChannelAccount_InServiceWindow() {
	s := fake.NewServer(fake.WithSeed(fake.DemoSeed()))
	defer s.Close()
	accounts, err := s.Client().Channels.List(context.Background())
	if err != nil {
		log.Fatal(err)
	}
	line := accounts[0] // chatapp: a 24h service window

	// Judge the window on the service's clock: a conversation's
	// last_inbound_at against the time the service reports, not your
	// machine's clock.
	lastInbound := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	for _, after := range []time.Duration{23 * time.Hour, 24 * time.Hour} {
		fmt.Println(after, line.InServiceWindow(lastInbound, lastInbound.Add(after)))
	}
	fmt.Println("never wrote:", line.InServiceWindow(time.Time{}, lastInbound))
	// Output:
	// 23h0m0s true
	// 24h0m0s false
	// never wrote: false
}

func ExampleChannelAccount_RequiresTemplate() {
	s := fake.NewServer(fake.WithSeed(fake.DemoSeed()))
	defer s.Close()
	accounts, err := s.Client().Channels.List(context.Background())
	if err != nil {
		log.Fatal(err)
	}

	// Two days after the contact's last message: chatapp only lets a
	// template through; botapp has no such rule.
	lastInbound := time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC)
	now := lastInbound.Add(48 * time.Hour)
	for _, a := range accounts {
		fmt.Println(a.DisplayName, a.RequiresTemplate(lastInbound, now))
	}
	// Output:
	// Acme Support true
	// Acme Sales true
	// Acme Help Bot false
}

func ExampleError_InvalidBucket() {
	s := fake.NewServer()
	defer s.Close()
	client := s.Client()

	_, err := client.Anomalies.Get(context.Background(), &convo.AnomaliesParams{Include: []convo.Bucket{"urgent"}})
	var apiErr *convo.Error
	if errors.As(err, &apiErr) {
		if d, ok := apiErr.InvalidBucket(); ok {
			fmt.Println(apiErr.Code, d.ValidBuckets, d.OptIn)
		}
	}
	// Output:
	// INVALID_BUCKET [unanswered never_engaged unassigned automation_only] [unassigned automation_only]
}

func ExampleError_Temporary() {
	s := fake.NewServer()
	defer s.Close()
	client := s.Client(convo.WithMaxRetries(0))
	ctx := context.Background()

	// Temporary says whether the same call may succeed later unchanged:
	// worth queueing for a retry, rather than reporting to a person.
	s.AddFault(fake.Fault{Path: "/channels", Status: 503, Times: 1})
	_, err := client.Channels.List(ctx)
	var apiErr *convo.Error
	if errors.As(err, &apiErr) {
		fmt.Println(apiErr.StatusCode, apiErr.Temporary())
	}
	_, err = client.Contacts.Lookup(ctx, &convo.LookupContactParams{PhoneNumber: "5511987654321"})
	if errors.As(err, &apiErr) {
		fmt.Println(apiErr.StatusCode, apiErr.Temporary())
	}
	// Output:
	// 503 true
	// 404 false
}

func ExampleTransportError_Timeout() {
	s := fake.NewServer()
	defer s.Close()
	// The service takes a second to answer; the caller waits 50ms.
	s.AddFault(fake.Fault{Path: "/channels", Latency: time.Second, Times: 1})
	client := s.Client(convo.WithMaxRetries(0))

	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	_, err := client.Channels.List(ctx)
	var te *convo.TransportError
	if errors.As(err, &te) {
		fmt.Println(te.Method, te.Path, te.Timeout(), errors.Is(err, context.DeadlineExceeded))
	}
	// Output:
	// GET /channels true true
}

func ExampleInvalidTextError() {
	s := fake.NewServer()
	defer s.Close()
	client := s.Client()

	// Invalid UTF-8 would reach the service as U+FFFD: refused before any request.
	_, err := client.Contacts.Create(context.Background(), &convo.CreateContactParams{
		PhoneNumberID: "5511900000000", PhoneNumber: "5511912345678", Name: "Bi\xe1",
	})
	var ite *convo.InvalidTextError
	fmt.Println(errors.Is(err, convo.ErrInvalidText), errors.As(err, &ite) && ite.Where == "body field name")
	// Output:
	// true true
}
