// Package fake is an in-process fake of the conversational messaging service
// described in the interface specification (version 3.0.0) and in DESIGN.md.
//
// It exists so that users of the SDK can run their tests offline and
// deterministically: the fake is exact about the wire (envelopes, error codes
// and texts, bounds, windows, anomaly buckets and ceilings, cache, rate limit,
// tenancy) and is tested at the wire, with raw HTTP requests, not through the
// SDK, so that a mistake shared by client and fake cannot pass unseen.
//
// A test typically does:
//
//	s := fake.New(t, fake.WithClock(fake.NewManualClock(start)))
//	co := s.Company()
//	line := co.AddChannel(fake.ChannelAccount{Channel: fake.Chatapp, DisplayName: "Sales", ProviderIdentifier: "5511900000000"})
//	ana := co.AddContact(fake.Contact{Account: line, Phone: "+55 11 98765-4321", Name: "Ana"})
//	conv := co.AddConversation(fake.Conversation{Contact: ana})
//	co.Inbound(conv, "Hello!", s.Clock().Now().Add(-5*time.Hour))
//	client := s.Client()
//
// Everything that depends on time (windows, anomaly ages, the anomaly cache,
// rate limits, timestamps, attachment expiry) reads one [Clock].
//
// Decisions the specification leaves open and that the fake takes on its own
// are documented on the names they concern and listed here:
//
//   - Unknown routes answer 404 NOT_FOUND, a known path with another method
//     405 METHOD_NOT_ALLOWED (with an Allow header), a body that is not a JSON
//     object or not sent as application/json 400 INVALID_PARAM; all in the §7
//     envelope. These codes are not in the specification's table.
//   - The error body's path is the internal path (/api/v1/...) without the
//     query string.
//   - Fault rules are applied before routing and authentication: they model
//     the network or the server misbehaving.
//   - Route matching comes before authentication (an unknown route is 404
//     even without a key); authentication comes before the rate limit.
//   - Attachments (§4.2, D9): unknown or another company's media is 404
//     MEDIA_NOT_FOUND; the temporary URL lives under /_files/ on the fake
//     itself, needs no key, and past its expires_at answers 403 URL_EXPIRED
//     (as signed storage URLs do); an unknown token is 404 NOT_FOUND.
//   - Messages (§4.1): a cursor carries the window of its first page, so since
//     is ignored when a cursor is given; window.recent_window_days is always
//     30 and window.since the start actually applied.
//   - Conversations (§4.3): most recent last_message_at first (created_at for
//     a conversation without messages), ties by id descending; the cursor
//     carries the filters of the first page and lists conversations as they
//     stood then.
//   - Anomalies (§4.4): only open conversations count, in every bucket; the
//     window is inclusive at both ends; the cache is per company, bucket and
//     threshold.
//   - Contact creation (§4.6) requires phone_number_id (MISSING_PARAM).
//   - System messages count neither as the contact speaking nor as a reply.
package fake
