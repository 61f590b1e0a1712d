package redislimit_test

import (
	"context"
	"fmt"
	"log"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/redis/go-redis/v9"

	convo "github.com/convoapi/convo-go"
	"github.com/convoapi/convo-go/fake"
	"github.com/convoapi/convo-go/redislimit"
)

// Each process (replica, worker, CI shard) makes its Limiter from the same
// Redis and the same API key, and gives it to its client: the processes
// are then paced as one client. Here an in-memory Redis and the fake
// service stand in for the real ones.
func ExampleNew() {
	mr, err := miniredis.Run()
	if err != nil {
		log.Fatal(err)
	}
	defer mr.Close()
	addr := mr.Addr()
	s := fake.NewServer()
	defer s.Close()
	s.Company().AddChannel(fake.ChannelAccount{Channel: convo.ChannelChatapp, ProviderIdentifier: "5511900000000"})
	apiKey := s.APIKey()

	rdb := redis.NewClient(&redis.Options{Addr: addr})               // any go-redis client: cluster, sentinel, TLS
	lim, err := redislimit.New(rdb, apiKey, redislimit.WithRate(50)) // omit WithRate to learn the rate
	if err != nil {
		log.Fatal(err)
	}
	defer func() { _ = rdb.Close() }()
	client, err := convo.NewClient(convo.WithAPIKey(apiKey), convo.WithRateLimiter(lim),
		convo.WithBaseURL(s.URL())) // the fake, for the example
	if err != nil {
		log.Fatal(err)
	}
	accounts, err := client.Channels.List(context.Background())
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(len(accounts), "channel account")
	// Output: 1 channel account
}

// A 429 with a Retry-After seen by one process holds every process on the
// same key until it has passed.
func ExampleLimiter_Observe() {
	mr, err := miniredis.Run()
	if err != nil {
		log.Fatal(err)
	}
	defer mr.Close()
	process := func() *redislimit.Limiter { // each process has its own Redis client and Limiter
		rdb := redis.NewClient(&redis.Options{Addr: mr.Addr()})
		lim, err := redislimit.New(rdb, "the API key", redislimit.WithTimeout(time.Second)) // a generous timeout, for the example
		if err != nil {
			log.Fatal(err)
		}
		return lim
	}
	a, b := process(), process()

	// The client of process a tells its limiter of a refused attempt.
	now := time.Now()
	a.Observe(convo.Turn{Method: "POST", Route: "/chatapp/contacts"}, convo.Outcome{
		Kind: convo.OutcomeRefused, StatusCode: 429, RetryAfter: 2 * time.Second, Sent: now, Received: now})

	// Process b's next attempt waits for it too.
	wait, err := b.Take(context.Background(), convo.Turn{Method: "GET", Route: "/channels"})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("process b waits", wait.Round(time.Second))
	// Output: process b waits 2s
}
