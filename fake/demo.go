package fake

import (
	"encoding/base64"

	convo "github.com/convoapi/convo-go"
)

// onePixelPNG is a valid 1×1 PNG, so that demo downloads open in a viewer.
var onePixelPNG, _ = base64.StdEncoding.DecodeString("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=")

const demoPDF = "%PDF-1.4\n1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj\n2 0 obj << /Type /Pages /Kids [] /Count 0 >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n"

// DemoSeed returns pleasant demo data for examples and cmd/convofake: one
// company (the default key) with two chatapp numbers, a botapp bot and a
// webchat widget; nine contacts (one phone on two numbers); eleven
// conversations with open, resolved and archived statuses, assigned and not;
// about forty messages with text, available image, document and audio media,
// media in unknown and no_reference status, reactions, a system and an
// unsupported message. Times are relative to the clock's now when loaded:
// some conversations wait unanswered for a few hours, one was answered only
// by automation, two were never engaged, one is too recent for the anomaly
// threshold, one is older than the 30-day read window.
//
// Each call returns a fresh value; callers may modify it.
func DemoSeed() *Seed {
	img := func(filename string) *Media {
		return &Media{MediaStatus: convo.MediaAvailable, MimeType: "image/png", Filename: filename, Data: onePixelPNG}
	}
	return &Seed{Companies: []CompanySeed{{
		Channels: []ChannelAccount{
			{Ref: "support", Channel: convo.ChannelChatapp, DisplayName: "Acme Support", ProviderIdentifier: "5511940000001"},
			{Ref: "sales", Channel: convo.ChannelChatapp, DisplayName: "Acme Sales", ProviderIdentifier: "5511940000002"},
			{Ref: "bot", Channel: convo.ChannelBotapp, DisplayName: "Acme Help Bot", ProviderIdentifier: "acme_help_bot"},
			{Ref: "site", Channel: convo.ChannelWebchat, DisplayName: "acme.example website"},
		},
		Contacts: []Contact{
			{Ref: "ana", ChannelAccountID: "support", PhoneNumber: "+55 11 98765-4321", Name: "Ana Souza", Email: "ana.souza@example.com", Gender: "female",
				Tags: []string{"vip", "customer"}, CustomFields: map[string]string{"plan": "gold", "city": "São Paulo"}, SequenceName: "Renewal reminders", CreatedAgo: "90d"},
			{Ref: "bruno", ChannelAccountID: "support", PhoneNumber: "+55 21 99876-5432", Name: "Bruno Lima", Tags: []string{"lead"},
				CustomFields: map[string]string{"source": "instagram"}, CreatedAgo: "30d"},
			{Ref: "carla", ChannelAccountID: "sales", PhoneNumber: "+55 31 98888-1234", Name: "Carla Mendes", Gender: "female",
				Tags: []string{"lead", "demo-requested"}, SequenceName: "Onboarding", CreatedAgo: "2d"},
			{Ref: "diego", ChannelAccountID: "sales", PhoneNumber: "+351 912 345 678", Name: "Diego Ferreira", Email: "diego@ferreira.example", Gender: "male",
				Tags: []string{"customer"}, CustomFields: map[string]string{"company": "Ferreira & Filhos"}, CreatedAgo: "14d"},
			{Ref: "ana-sales", ChannelAccountID: "sales", PhoneNumber: "5511987654321", Name: "Ana Souza", CreatedAgo: "5d"},
			{Ref: "emma", ChannelAccountID: "bot", ChannelIdentifier: "tg-48213977", Name: "Emma Clarke", Email: "emma.clarke@example.org", CreatedAgo: "1d"},
			{Ref: "farid", ChannelAccountID: "bot", ChannelIdentifier: "tg-51002931", PhoneNumber: "+44 7700 900123", Name: "Farid Haddad", CreatedAgo: "3d"},
			{Ref: "visitor", ChannelAccountID: "site", ChannelIdentifier: "visitor-7f3a", Name: "Website visitor", CreatedAgo: "13h"},
			{Ref: "gabi", ChannelAccountID: "site", ChannelIdentifier: "visitor-91c2", Name: "Gabriela Rocha", Email: "gabi@example.net", CreatedAgo: "45d"},
		},
		Conversations: []Conversation{
			{Ref: "ana-order", ContactID: "ana", AssignedTo: "Marta", Messages: []Message{
				{Sender: "contact", Text: "Hi! My order #4521 hasn't arrived yet.", Ago: "26h"},
				{Sender: "agent", Text: "Hi Ana, let me check that for you.", Status: "read", Ago: "25h50m"},
				{Sender: "agent", Type: "image", Text: "Here is the tracking page", Status: "read", Ago: "25h40m",
					Media: img("tracking.png"), Reactions: []Reaction{{Emoji: "👍", Ago: "25h35m"}}},
				{Sender: "contact", Text: "Thanks! 🙏", Ago: "25h30m"},
				{Sender: "contact", Type: "audio", Ago: "5h10m", Media: &Media{MediaStatus: convo.MediaAvailable, MimeType: "audio/ogg", Filename: "voice-note.ogg", FileSize: 2048}},
				{Sender: "contact", Text: "It still says 'in transit'… can you help?", Ago: "5h"},
				{Sender: "contact", Type: "image", Ago: "4h58m", Media: &Media{MediaStatus: convo.MediaUnknown, MimeType: "image/jpeg"}},
			}},
			{Ref: "bruno-shipping", ContactID: "bruno", Messages: []Message{
				{Sender: "contact", Text: "Good morning! Do you ship to Recife?", Ago: "7h20m"},
				{Sender: "contact", Type: "document", Ago: "7h15m"},
				{Sender: "contact", Text: "That was my shopping list, sorry 😅", Ago: "7h"},
			}},
			{Ref: "bruno-old", ContactID: "bruno", Status: convo.ConversationResolved, AssignedTo: "Marta", Messages: []Message{
				{Sender: "contact", Text: "How do I reset my password?", Ago: "20d"},
				{Sender: "agent", Text: "Tap 'Forgot password' on the login screen.", Status: "read", Ago: "19d23h"},
				{Sender: "contact", Text: "Worked, thanks!", Ago: "19d22h", Reactions: []Reaction{{Emoji: "❤️", Direction: convo.DirectionOutbound, Ago: "19d21h"}}},
				{Sender: "system", Ago: "19d20h"},
			}},
			{Ref: "carla-demo", ContactID: "carla", AssignedTo: "Rafael", Messages: []Message{
				{Sender: "contact", Text: "Hello, can I get a demo next week?", Ago: "6h"},
				{Sender: "automation", Text: "Thanks for reaching out! A specialist will contact you shortly.", Status: "read", Ago: "5h59m"},
				{Sender: "automation", Text: "Meanwhile, here is our product overview.", Type: "document", Status: "delivered", Ago: "5h58m",
					Media: &Media{MediaStatus: convo.MediaAvailable, MimeType: "application/pdf", Filename: "acme-overview.pdf", Content: demoPDF}},
			}},
			{Ref: "diego-deal", ContactID: "diego", Status: convo.ConversationResolved, AssignedTo: "Rafael", Messages: []Message{
				{Sender: "contact", Text: "Could you send the proposal?", Ago: "3d4h"},
				{Sender: "agent", Text: "Sure, attached.", Type: "document", Status: "read", Ago: "3d3h",
					Media: &Media{MediaStatus: convo.MediaAvailable, MimeType: "application/pdf", Filename: "proposal-ferreira.pdf", Content: demoPDF}},
				{Sender: "contact", Text: "Signed! 🎉", Ago: "2d", Reactions: []Reaction{{Emoji: "🎉", Direction: convo.DirectionOutbound, Ago: "1d23h"}}},
				{Sender: "agent", Text: "Welcome aboard, Diego!", Status: "read", Ago: "1d23h"},
				{Sender: "system", Ago: "1d22h"},
			}},
			{Ref: "ana-campaign", ContactID: "ana-sales", Messages: []Message{
				{Sender: "automation", Text: "Hi Ana, our spring catalog is out!", Status: "delivered", Ago: "2d"},
				{Sender: "automation", Type: "image", Text: "Spring catalog", Status: "delivered", Ago: "2d", Media: img("spring.png")},
			}},
			{Ref: "emma-hours", ContactID: "emma", Messages: []Message{
				{Sender: "contact", Text: "Is the store open on Sunday?", Ago: "35m"},
			}},
			{Ref: "farid-return", ContactID: "farid", AssignedTo: "Leo", Messages: []Message{
				{Sender: "contact", Text: "Can I return a gift without the receipt?", Ago: "9h"},
				{Sender: "phone", Text: "Yes, within 30 days, with an ID.", Status: "read", Ago: "8h", Reactions: []Reaction{{Emoji: "🙌", Ago: "7h55m"}}},
				{Sender: "contact", Type: "unsupported", Ago: "7h50m"},
			}},
			{Ref: "visitor-blue", ContactID: "visitor", Messages: []Message{
				{Sender: "contact", Text: "Do you have the Aurora lamp in blue?", Ago: "12h30m"},
				{Sender: "contact", Type: "image", Text: "This one", Ago: "12h29m", Media: img("aurora-lamp.png")},
			}},
			{Ref: "gabi-old", ContactID: "gabi", Status: convo.ConversationArchived, Messages: []Message{
				{Sender: "contact", Text: "Hi, is the sale still on?", Ago: "40d"},
				{Sender: "agent", Text: "It ended yesterday, sorry!", Status: "read", Ago: "39d23h"},
				{Sender: "contact", Text: "Any news on the next one?", Ago: "10d"},
				{Sender: "automation", Text: "Subscribe to our newsletter to hear first.", Status: "read", Ago: "10d"},
			}},
			{Ref: "gabi-new", ContactID: "gabi", CreatedAgo: "1h"},
		},
	}}}
}
