package fake_test

import (
	"fmt"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/convoapi/convo-go/fake"
)

// transport with enough idle connections for 100 goroutines.
var parallelClient = &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 128}}

func rawDo(s *fake.Server, method, path, body string) (int, error) {
	req, err := http.NewRequest(method, s.URL()+path, stringsReader(body))
	if err != nil {
		return 0, err
	}
	req.Header.Set("Authorization", "Bearer "+s.APIKey())
	req.Header.Set("Content-Type", "application/json")
	res, err := parallelClient.Do(req)
	if err != nil {
		return 0, err
	}
	defer res.Body.Close()
	_, _ = drain(res)
	return res.StatusCode, nil
}

func TestConcurrentCustomFieldMergesLoseNothing(t *testing.T) {
	s := newServer(t)
	b := seedBasic(t, s)
	conv := b.co.AddConversation(fake.Conversation{Contact: b.ana})
	var wg sync.WaitGroup
	for i := 0; i < 100; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			body := fmt.Sprintf(`{"phone_number":%q,"custom_fields":{"f%d":"v%d"}}`, b.anaPhone, i, i)
			code, err := rawDo(s, "PATCH", "/chatapp/contacts/custom-fields", body)
			assert.NoError(t, err)
			assert.Equal(t, 200, code)
			// Readers and seeders hammer at the same time.
			code, err = rawDo(s, "GET", "/conversations/"+conv+"/messages?limit=5", "")
			assert.NoError(t, err)
			assert.Equal(t, 200, code)
			b.co.Inbound(conv, "x", time.Time{})
			_, _ = rawDo(s, "GET", "/conversations/anomalies", "")
			_, _ = rawDo(s, "GET", "/conversations?status=all", "")
		}()
	}
	wg.Wait()
	ct, _ := s.Contact(b.ana)
	assert.Len(t, ct.CustomFields, 101) // plan + 100
	for i := 0; i < 100; i++ {
		assert.Equal(t, fmt.Sprintf("v%d", i), ct.CustomFields[fmt.Sprintf("f%d", i)])
	}
}

func TestConcurrentIdenticalCreatesGiveOne201(t *testing.T) {
	s := newServer(t)
	b := seedBasic(t, s)
	var created, exists atomic.Int32
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := 0; i < 100; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			code, err := rawDo(s, "POST", "/chatapp/contacts", `{"phone_number_id":"`+b.chatPNID+`","phone_number":"+55 21 99999-0000","name":"Carla"}`)
			require.NoError(t, err)
			switch code {
			case 201:
				created.Add(1)
			case 409:
				exists.Add(1)
			}
		}()
	}
	close(start)
	wg.Wait()
	assert.Equal(t, int32(1), created.Load())
	assert.Equal(t, int32(99), exists.Load())
}

func TestConcurrentSequenceCancelExactlyOnce(t *testing.T) {
	s := newServer(t)
	b := seedBasic(t, s)
	b.co.ScheduleSequence(b.ana, "Onboarding")
	var canceled atomic.Int32
	var wg sync.WaitGroup
	for i := 0; i < 50; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := call(t, s, "POST", "/v1/chatapp/sequences/cancel", map[string]string{"phone_number": b.anaPhone})
			if string(r.Body) != "" && r.Status == 200 && contains(r.Body, `"canceled":true`) {
				canceled.Add(1)
			}
		}()
	}
	wg.Wait()
	assert.Equal(t, int32(1), canceled.Load())
}
