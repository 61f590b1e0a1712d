package fake_test

import (
	"context"
	"fmt"
	"net/http"
	"sync/atomic"

	"github.com/convoapi/convo-go/fake"
)

func ExampleWithHandlerMiddleware() {
	// Count what reaches the server; a middleware can as well log the
	// traffic or check it against a contract.
	var requests atomic.Int64
	count := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			requests.Add(1)
			next.ServeHTTP(w, r)
		})
	}
	s := fake.NewServer(fake.WithHandlerMiddleware(count))
	defer s.Close()

	if _, err := s.Client().Channels.List(context.Background()); err != nil {
		panic(err)
	}
	fmt.Println(requests.Load())
	// Output:
	// 1
}
