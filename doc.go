// Package convo is the Go client for the conversational messaging service:
// conversations, messages and their media, contacts, channel accounts and the
// anomaly report of conversations waiting for an answer. It implements the
// service's interface specification, version 3.0.0, whose wire contract is
// api/openapi.yaml in this repository ("OpenAPI listMessages" in these docs
// names an operation or schema there); where that specification is silent,
// docs/behaviour.md states what the client (and package fake) do.
//
// # Usage
//
//	import convo "github.com/convoapi/convo-go"
//
// Build a client, then use the services it holds, one per resource group:
//
//	client, err := convo.NewClient() // reads CONVO_API_KEY and CONVO_BASE_URL
//	if err != nil {
//		return err
//	}
//	accounts, err := client.Channels.List(ctx)
//
// Every call takes a context.Context first; its deadline and cancellation
// bound the whole call, retries included. A Client is safe for concurrent
// use and holds no global state: build one per account and share it.
//
// # Authentication
//
// The service authenticates every request by an API key in a header
// (docs/behaviour.md, Connecting). NewClient takes the key from [WithAPIKey], else from the
// CONVO_API_KEY environment variable, and the base URL from [WithBaseURL],
// else from CONVO_BASE_URL. There is no default base URL, and it must end
// with /v1; without a key NewClient fails, so no request ever leaves without
// one. The key travels as "Authorization: Bearer <key>" unless
// [WithAuthScheme] selects one of the two other forms the service accepts.
//
// The key is for server-to-server use. The client sends it only to the base
// URL's host: never in an error text or a log record, never across a
// redirect to another host, never to an attachment's temporary address, and
// never over plain http:// to a host other than loopback unless
// [WithInsecureHTTP] allows it.
//
// # Retries and rate limits
//
// Every call goes through one pipeline: authentication, retries, a body read
// capped by [WithMaxResponseBytes] (a body announced larger is refused
// unread), and typed errors.
//
// A 429 RATE_LIMITED answer is retried for every method after the wait the
// service asks for in Retry-After, and never before it has passed, when
// that wait fits within [WithMaxRetryWait] (30 seconds by default) and the
// context's deadline. Otherwise the call returns the error at once with
// [Error.RetryAfter] set, so that you can schedule the retry. A call refused
// again after such a wait waits that and a random extra of up to half of
// it, within the same bounds, unless the client does not pace
// ([NoRateLimiter]): the service tells every call it refuses at one moment
// the same wait, and calls that came back together would meet a full key
// together again. A Retry-After that is negative, unparsable or longer than
// [MaxRetryAfter] is ignored, as if absent: the call retries on its
// backoff, and [Error.RetryAfter] is 0.
// The service does not say what kind of limiter it runs, and its limit is
// the account's, shared by every process that uses the key. After it first
// refuses a call for its rate, the client paces all its calls at the rate
// the service accepts of it ([AdaptiveRate], the default of
// [WithRateLimiter]), cutting on each refusal and growing by time between
// them, so that a bulk run proceeds near the limit under a token bucket, a
// fixed window or a sliding window alike, and clients that share a key
// share it without speaking to each other. A [RateLimiter] is an open
// interface: several clients given the same one are paced together, and
// one of your own keeps every rule the client keeps around the SDK's
// (never before a Retry-After, the held-call bound, retried calls first, one
// trace wait per wait). The client's waits all happen before an attempt
// enters your middleware.
// Transport errors, 408, 502, 503 and 504
// are retried with jittered exponential backoff ([WithRetryWait]) for GET,
// PATCH and DELETE only: a POST is never repeated except after a 429, which
// the service did not process, so a contact is never created twice.
// [WithMaxRetries] sets the number of retries (5 by default, which leaves
// room for the refusals of a limit shared with other processes; 0 disables
// them). The anomaly report is limited to about one pass a day: schedule it,
// do not poll it.
//
// # Pagination
//
// Listings are cursor-paginated. List methods return one page (a [Page] or a
// [MessagePage]) whose NextCursor goes back in the next call's parameters;
// All methods return an iter.Seq2 that fetches page after page as the loop
// advances, with no goroutine:
//
//	for conv, err := range client.Conversations.All(ctx, &convo.ListConversationsParams{Assigned: convo.Bool(false)}) {
//		if err != nil {
//			return err
//		}
//		fmt.Println(conv.ID, conv.UnreadCount)
//	}
//
// Breaking out of the loop stops fetching; the first error ends the
// sequence. A cursor stays valid while new messages arrive: paging never
// repeats nor skips an item that existed when the first page was read.
//
// # Errors
//
// Every answer other than 2xx is an [*Error] carrying the HTTP status, the
// service's error code (message.error), its text, the raw details, the
// errorId to quote to support, and on 429 the wait asked for. Branch on the
// code, never on the text, with errors.Is and the sentinels, or errors.As:
//
//	_, err := client.Contacts.Lookup(ctx, &convo.LookupContactParams{PhoneNumber: phone})
//	var apiErr *convo.Error
//	switch {
//	case errors.Is(err, convo.ErrContactNotFound):
//		// create it
//	case errors.As(err, &apiErr):
//		return fmt.Errorf("lookup: %s (error id %s)", apiErr.Code, apiErr.ErrorID)
//	case err != nil:
//		return err // network, timeout, cancelled context
//	}
//
// A call that got no usable answer (connection refused, timeout, cancelled
// context) is a [*TransportError]; errors.Is(err, context.DeadlineExceeded)
// works through it. A body that is not the service's error envelope (a
// proxy's HTML page) still gives an *Error with the status and a short
// excerpt. Bad input to a method (an empty identifier, nil parameters where
// some are required) is a typed error before any request is sent; nothing
// panics.
//
// # Media
//
// A message never carries a file's address. Its media block holds a
// media_id, which the attachment endpoint exchanges for a temporary address.
// [AttachmentsService.ForMessage] does the exchange, and answers [ErrNoMedia]
// without any request when the message has no retrievable file (the media
// status says why); [AttachmentsService.Download] streams the file into any
// io.Writer without buffering it, renewing an expired address once, and
// without ever sending the API key to the file's host.
//
// # Testing with fake
//
// Package fake (github.com/convoapi/convo-go/fake) runs the whole service
// in-process, exact about the wire, with a clock your test controls, fault
// injection and a journal of the requests received:
//
//	s := fake.New(t, fake.WithClock(fake.NewManualClock(start)))
//	co := s.Company()
//	line := co.AddChannel(fake.ChannelAccount{Channel: convo.ChannelChatapp, ProviderIdentifier: "5511940000001"})
//	conv := co.AddConversation(fake.Conversation{ContactID: co.AddContact(fake.Contact{ChannelAccountID: line, PhoneNumber: "5511987654321"})})
//	co.Inbound(conv, "Where is my order?", start.Add(-5*time.Hour))
//	client := s.Client() // a *convo.Client pointed at the fake
//
// cmd/convofake serves the same fake over HTTP for other languages.
//
// # Examples
//
// Every function and method has a runnable Example that starts its own fake
// and can be copied as it is. go doc does not print examples: read them on
// pkg.go.dev, in the example_*_test.go files, or locally with
// go run golang.org/x/pkgsite/cmd/pkgsite@latest.
package convo
