// Package fake is an in-process fake of the conversational messaging service:
// the whole service of the interface specification (version 3.0.0), with the
// rules convo-go follows where that specification is silent
// (docs/behaviour.md in this repository).
//
// It exists so that code built on package convo can be tested offline and
// deterministically. The fake is exact about the wire (envelopes, error codes
// and texts, bounds, windows, anomaly buckets and ceilings, cache, rate limit,
// tenancy between companies) and is tested at the wire, with raw HTTP
// requests, not only through the SDK, so that a mistake shared by client and
// fake cannot pass unseen. It is safe for concurrent use.
//
// # Starting a server
//
// [New] starts a server for a test and closes it when the test ends;
// [NewServer] starts one for use outside tests (close it yourself);
// [NewHandler] builds one without a listener, to mount its [Server.Handler]
// in a server of your own. [Server.URL] is the base URL (ending in /v1),
// [Server.APIKey] the default company's key, and [Server.Client] a
// *convo.Client pointed at both. cmd/convofake serves the same fake over HTTP
// for other languages.
//
// # Seeding
//
// State is seeded through Go calls on a [Company] (channel accounts,
// contacts with tags, custom fields and scheduled sequences, conversations,
// messages from the contact, an agent, the phone app or automation, media,
// reactions, assignment, status), or from a JSON document: [LoadSeed] reads
// one, [WithSeed] and [Server.Load] apply it, [DemoSeed] is the demo data of
// the examples. A test typically does:
//
//	s := fake.New(t, fake.WithClock(fake.NewManualClock(start)))
//	co := s.Company()
//	line := co.AddChannel(fake.ChannelAccount{Channel: convo.ChannelChatapp, DisplayName: "Sales", ProviderIdentifier: "5511900000000"})
//	ana := co.AddContact(fake.Contact{Account: line, Phone: "+55 11 98765-4321", Name: "Ana"})
//	conv := co.AddConversation(fake.Conversation{Contact: ana})
//	co.Inbound(conv, "Hello!", s.Clock().Now().Add(-5*time.Hour))
//	client := s.Client()
//
// Each company is a tenant with its own key ([Server.AddCompany]): another
// company's data is "not found", never visible.
//
// # Time
//
// Everything that depends on time (windows, anomaly ages, the anomaly cache,
// rate limits, timestamps, attachment expiry) reads one [Clock]. A manual
// clock ([NewManualClock], [WithClock]) moves only when the test says so
// ([Clock.Advance], [Clock.Set]): no test depends on today's date or sleeps.
//
// # Faults and the journal
//
// [Server.AddFault] makes matching requests misbehave: an error answer of
// any status and code, a Retry-After, added latency or a dropped connection,
// a number of times or always. [Server.Requests] returns every request
// received, with the key redacted, for assertions on what your code sent.
// [Server.Contact], [Server.Conversation] and [Server.Message] return
// snapshots of the state, for assertions on the effects of your calls.
//
// After the calls, the request journal says what reached the server, in the
// path form of fault rules (relative to the base URL, the version prefix in
// a field of its own):
//
//	s.CheckRequests(t, "POST", "/chatapp/contacts", 1)
//	s.CheckLastBody(t, "POST", "/chatapp/contacts", `{"phone_number":"5511987654321", ...}`)
//	last, _ := s.LastRequest("GET", "/conversations/*/messages")
//
// [Server.Reset] puts the server back as it started (its [WithSeed] data);
// [Server.Clear] empties it.
//
// # Decisions of the fake
//
// Decisions the specification leaves open and that the fake takes on its own
// (they concern only the fake; the SDK does not depend on them) are
// documented on the names they concern and listed here:
//
//   - Unknown routes answer 404 NOT_FOUND, a known path with another method
//     405 METHOD_NOT_ALLOWED (with an Allow header), a body that is not a
//     JSON object or not sent as application/json 400 INVALID_PARAM, a body
//     over 1 MiB 400 INVALID_PARAM; all in the §7 envelope. These codes are
//     not in the specification's table. HEAD is answered wherever GET is,
//     with the same status and headers and no body.
//   - Paths are matched as sent, escaped, segment by segment: an id holding
//     an escaped "/" ("abc%2Fdef") is one segment and reaches its endpoint,
//     which answers with its own code (CONVERSATION_NOT_FOUND). A trailing
//     slash, an escaped slash in a fixed segment ("/v1/channels%2F"), an
//     empty segment (a double slash) and "." or ".." segments make another
//     path: 404 NOT_FOUND, never a redirect.
//   - Query strings: pairs are separated by "&" only (a ";" belongs to the
//     value), a malformed "%" escape is 400 INVALID_PARAM, and so is a
//     parameter given twice (naming it), whatever the values: lists such as
//     include are one comma-separated value. Integer
//     parameters (limit, threshold_hours) are decimal digits only, leading
//     zeros allowed ("05"); a sign, a space, a fraction or an exponent is
//     INVALID_PARAM. Date-time parameters are RFC 3339 with a zone; they are
//     applied to the millisecond, as window.since echoes them.
//   - The error body's path is the internal path (/api/v1/...), escaped as
//     sent, without the query string.
//   - Fault rules are applied before routing and authentication: they model
//     the network or the server misbehaving. A latency fault whose client
//     gives up first closes the connection without an answer.
//   - Every request ends in a §7 envelope or a closed connection, never an
//     empty answer: a body that cannot be read whole (shorter than its
//     Content-Length, broken chunked encoding) is 400 INVALID_PARAM naming
//     the body.
//   - Route matching comes before authentication (an unknown route is 404
//     even without a key); authentication comes before the rate limit, and
//     both before anything about the request itself (parameters, body, ids).
//     The key is checked before the body is read: the body of a request
//     without a valid key is never read, so it costs the fake no memory, and
//     the journal shows such a request without its body.
//   - The journal ([Server.Requests]) is bounded twice: a number of entries
//     ([WithJournalLimit]) and a byte budget ([WithJournalBytes]); the oldest
//     entries go first, and a body is kept up to 64 KiB, then cut with a
//     marker line.
//   - Attachments (§4.2): unknown or another company's media is 404
//     MEDIA_NOT_FOUND; the temporary URL lives under /_files/ on the fake
//     itself (its listener's address, or [WithPublicURL]; never the
//     request's Host header), needs no key, and past its expires_at answers
//     403 URL_EXPIRED (as signed storage URLs do); an unknown token is 404
//     NOT_FOUND.
//   - Messages (§4.1): a cursor carries the window of its first page, so since
//     is ignored when a cursor is given; window.recent_window_days is always
//     30 and window.since the start actually applied, inclusive: without
//     since it is exactly 30 days before now, to the millisecond.
//   - Media (§2.3): image, document, audio, video and sticker messages
//     always have a media block; other types have media null. A default
//     filename comes from a fixed table of MIME types (never from the
//     machine's MIME database); a filename that is a path cannot be seeded.
//   - Conversations (§4.3): most recent last_message_at first (created_at for
//     a conversation without messages), ties by id descending; the cursor
//     carries the filters of the first page (filters sent with a cursor are
//     validated, then ignored) and lists conversations as they stood then.
//   - Anomalies (§4.4): only open conversations count, in every bucket; the
//     window is inclusive at both ends; the cache is per company, bucket and
//     threshold. A reply with status failed did not go out: it takes a
//     conversation out of no bucket (a queued one counts). include is a
//     comma list; spaces, empty names, duplicates and the two
//     always-returned names are accepted.
//   - JSON bodies: bytes that are not UTF-8, a \u escape of a lone
//     surrogate and a NUL character (\u0000) in any string are 400
//     INVALID_PARAM naming the body, rather than silently becoming U+FFFD
//     (which could merge two custom-field names) or a NUL in a name.
//   - Contact creation (§4.6) requires phone_number_id (MISSING_PARAM).
//   - Without phone_number_id, the /chatapp endpoints search the
//     company's chatapp contacts only: the chat-channel layer is specific to
//     chatapp (§1), so a botapp contact with a phone is never its answer.
//   - Tag removal (§4.9): tag_ids is one string of ids separated by
//     commas; ids the contact does not carry (unknown, another contact's, a
//     tag name) are ignored, and the answer is 200.
//   - Custom field values (§4.8) are strings; null or any other type is 400
//     INVALID_PARAM naming the field, and nothing is merged.
//   - Seeds (SEED.md): a seed's now sets a manual clock; a server with a real
//     clock refuses such a seed ([Server.Load]) rather than shift its clock.
//   - System messages (sender system, or type system) count neither as the
//     contact speaking nor as a reply.
package fake
