// Package fake is an in-process fake of the conversational messaging service,
// for testing code built on package convo offline and deterministically.
//
// # Starting a server
//
// [New] starts a server bound to a test, [NewServer] one for use outside
// tests, [NewHandler] one to mount yourself ([Server.Handler]); cmd/convofake
// serves it over HTTP. [Server.Client] is a *convo.Client on it:
//
//	s := fake.New(t, fake.WithClock(fake.NewManualClock(start)))
//	client := s.Client()
//
// # Seeding
//
// Seed through a [Company], or from a JSON document ([LoadSeed], [WithSeed]):
//
//	co := s.Company()
//	line := co.AddChannel(fake.ChannelAccount{Channel: convo.ChannelChatapp, ProviderIdentifier: "5511900000000"})
//	ana := co.AddContact(fake.Contact{ChannelAccountID: line, PhoneNumber: "+55 11 98765-4321", Name: "Ana"})
//	co.Inbound(co.AddConversation(fake.Conversation{ContactID: ana}), "Hello!", start.Add(-5*time.Hour))
//
// A server holds companies (tenants, [Server.AddCompanySeed]), each seeing
// only its own data; ids are unique within a company, so one fixture loads
// in many. [Company.Conversations], [Company.Messages] and their kin list a
// company's data from the store, changing nothing the API answers.
//
// # Time
//
// Everything that depends on time reads one [Clock]; a manual clock moves
// only when the test says so ([Clock.Advance]).
//
// # Faults and the journal
//
//	s.AddFault(fake.Fault{Path: "/channels", Status: 503, Times: 1})
//	s.CheckRequests(t, "POST", "/chatapp/contacts", 1)
//
// Fault rules make matching requests fail, wait or drop; the journal
// ([Server.Requests], [Server.RequestsMatching]) keeps every request, keys
// redacted; [Server.Contact] and its kin show the state; [Server.Reset]
// puts the server back as it started. The fake follows api/openapi.yaml and
// docs/behaviour.md (which lists what the fake decides on its own), and is
// safe for concurrent use.
package fake
