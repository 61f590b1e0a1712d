package convo_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync/atomic"
	"time"

	convo "github.com/convoapi/convo-go"
	"github.com/convoapi/convo-go/fake"
)

// ExampleParallel looks up several contacts at once on one client, at most
// four calls in flight, and gets the results in the order of the inputs.
func ExampleParallel() {
	s := fake.NewServer(fake.WithClock(fake.NewManualClock(time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC))))
	defer s.Close()
	co := s.Company()
	line := co.AddChannel(fake.ChannelAccount{Channel: convo.ChannelChatapp, ProviderIdentifier: "5511940000001"})
	phones := []string{"5511987650001", "5511987650002", "5511987650003"}
	for i, p := range phones {
		co.AddContact(fake.Contact{ChannelAccountID: line, PhoneNumber: p, Name: fmt.Sprint("Contact ", i+1)})
	}
	c := s.Client()

	contacts, err := convo.Parallel(context.Background(), phones,
		func(ctx context.Context, phone string) (*convo.Contact, error) {
			return c.Contacts.Lookup(ctx, &convo.LookupContactParams{PhoneNumber: phone})
		}, convo.ParallelLimit(4))
	if err != nil {
		panic(err)
	}
	for _, ct := range contacts {
		fmt.Println(ct.PhoneNumber, ct.Name)
	}
	// Output:
	// 5511987650001 Contact 1
	// 5511987650002 Contact 2
	// 5511987650003 Contact 3
}

// ExampleParallelSeq streams results in input order as they become ready,
// from a sequence of any length, with a bounded number of calls in flight.
func ExampleParallelSeq() {
	square := func(_ context.Context, n int) (int, error) { return n * n, nil }
	for sq, err := range convo.ParallelSeq(context.Background(), slices.Values([]int{1, 2, 3, 4}), square, convo.ParallelLimit(2)) {
		if err != nil {
			panic(err)
		}
		fmt.Print(sq, " ")
	}
	fmt.Println()
	// Output: 1 4 9 16
}

// ExampleParallelLimit bounds the calls in flight: never more than the limit
// run at once.
func ExampleParallelLimit() {
	var running, most atomic.Int32
	work := func(_ context.Context, n int) (int, error) {
		now := running.Add(1)
		for m := most.Load(); now > m && !most.CompareAndSwap(m, now); m = most.Load() {
		}
		defer running.Add(-1)
		return n, nil
	}
	_, err := convo.Parallel(context.Background(), make([]int, 12), work, convo.ParallelLimit(3))
	fmt.Println(err, most.Load() <= 3)
	// Output: <nil> true
}

// ExampleParallelCollectAll runs every input even when some fail, and
// reports each failure with the position of its input.
func ExampleParallelCollectAll() {
	check := func(_ context.Context, n int) (int, error) {
		if n%2 == 1 {
			return 0, fmt.Errorf("%d is odd", n)
		}
		return n, nil
	}
	out, err := convo.Parallel(context.Background(), []int{2, 3, 4, 5}, check, convo.ParallelCollectAll())
	fmt.Println(out)
	var item *convo.ItemError
	fmt.Println(errors.As(err, &item), item.Index, item.Err)
	// Output:
	// [2 0 4 0]
	// true 1 3 is odd
}
