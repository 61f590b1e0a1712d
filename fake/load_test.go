package fake_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	convo "github.com/convoapi/convo-go"
	"github.com/convoapi/convo-go/fake"
)

// TestLoadUnderFaults drives the fake through the SDK from many goroutines
// on loopback while fault rules fail some requests: every call ends in a
// success or a typed error, no contact is created twice, no custom-field
// merge is lost, and no goroutine outlives the run. It takes a second or
// two; -short skips it.
func TestLoadUnderFaults(t *testing.T) {
	if testing.Short() {
		t.Skip("load test: skipped under -short")
	}
	const (
		workers    = 40
		iterations = 25
		phones     = 10 // phone numbers shared by the concurrent creators
	)
	baseline := runtime.NumGoroutine()
	s, b := newBasic(t, fake.WithRateLimit(0, 0))
	s.AddFault(fake.Fault{Method: "POST", Path: "/chatapp/contacts", Status: 503, Times: 30})
	s.AddFault(fake.Fault{Method: "PATCH", Path: "/chatapp/contacts/custom-fields", Status: 500, Times: 30})
	s.AddFault(fake.Fault{Method: "GET", Path: "/conversations", Status: 503, Times: 20})
	s.AddFault(fake.Fault{Path: "/channels", Drop: true, Times: 10})

	tr := &http.Transport{MaxIdleConnsPerHost: workers}
	client := s.Client(convo.WithHTTPClient(&http.Client{Transport: tr}), convo.WithRetryWait(time.Millisecond, 5*time.Millisecond))
	phoneOf := func(i int) string { return fmt.Sprintf("55119000%05d", i) }

	var (
		mu        sync.Mutex
		created   = map[string]int{} // phone -> successful creations
		merged    []string           // custom-field keys whose update succeeded
		untyped   []error
		wg        sync.WaitGroup
		ctx, stop = context.WithTimeout(context.Background(), 30*time.Second)
	)
	defer stop()
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range iterations {
				var err error
				switch (w + i) % 5 {
				case 0:
					p := phoneOf((w + i) % phones)
					if _, err = client.Contacts.Create(ctx, &convo.CreateContactParams{PhoneNumberID: b.chatPNID, PhoneNumber: p, Name: "Load"}); err == nil {
						mu.Lock()
						created[p]++
						mu.Unlock()
					}
				case 1:
					key := fmt.Sprintf("w%d_%d", w, i)
					if _, err = client.Contacts.UpdateCustomFields(ctx, &convo.UpdateCustomFieldsParams{PhoneNumber: b.anaPhone, CustomFields: map[string]string{key: "v"}}); err == nil {
						mu.Lock()
						merged = append(merged, key)
						mu.Unlock()
					}
				case 2:
					_, err = client.Conversations.List(ctx, &convo.ListConversationsParams{})
				case 3:
					_, err = client.Channels.List(ctx)
				case 4:
					_, err = client.Contacts.Lookup(ctx, &convo.LookupContactParams{PhoneNumber: b.anaPhone})
				}
				var apiErr *convo.Error
				var trErr *convo.TransportError
				if err != nil && !errors.As(err, &apiErr) && !errors.As(err, &trErr) {
					mu.Lock()
					untyped = append(untyped, err)
					mu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	assert.Empty(t, untyped, "every call ends in a success or a typed error")

	for i := range phones {
		p := phoneOf(i)
		n := 0
		for _, c := range b.co.Contacts() {
			if c.PhoneNumber == p && c.ChannelAccountID == b.chat {
				n++
			}
		}
		assert.LessOrEqual(t, n, 1, "phone %s: no contact is created twice", p)
		assert.LessOrEqual(t, created[p], 1, "phone %s: one creator wins", p)
		if created[p] == 1 {
			assert.Equal(t, 1, n, "phone %s: a successful create left its contact", p)
		}
	}
	ana := mustContact(t, s, b.ana)
	for _, k := range merged {
		assert.Contains(t, ana.CustomFields, k, "no merge is lost")
	}
	require.NotEmpty(t, merged)

	tr.CloseIdleConnections()
	s.Close()
	assert.Eventually(t, func() bool { return runtime.NumGoroutine() <= baseline+2 }, 5*time.Second, 10*time.Millisecond,
		"goroutines: %d before, %d after", baseline, runtime.NumGoroutine())
}
