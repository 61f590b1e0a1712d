// This file (formerly package seedgen) generates seed documents of package fake of any size, in
// the variety the conformance suite checks, for the tests that run the suite
// against a fake with thousands of records.

package conformancetest

import (
	"fmt"
	"time"

	"github.com/convoapi/convo-go"
	"github.com/convoapi/convo-go/fake"
)

// Generate returns a seed of about n records (channels, contacts,
// conversations and messages) in the variety the suite checks: every
// channel and status, assignment, media of each status, reactions, system
// messages, replies by agents and by automation, times from minutes to
// months ago. It is deterministic.
func Generate(n int) *fake.Seed {
	chans := []fake.ChannelAccount{
		{Ref: "line1", Channel: convo.ChannelChatapp, DisplayName: "Line 1", ProviderIdentifier: "5511940000101"},
		{Ref: "line2", Channel: convo.ChannelChatapp, DisplayName: "Line 2", ProviderIdentifier: "5511940000102"},
		{Ref: "bot", Channel: convo.ChannelBotapp, DisplayName: "Bot", ProviderIdentifier: "gen_bot"},
		{Ref: "site", Channel: convo.ChannelWebchat, DisplayName: "Site"},
	}
	co := fake.CompanySeed{Channels: chans}
	statuses := []convo.ConversationStatus{convo.ConversationOpen, convo.ConversationOpen, convo.ConversationResolved, convo.ConversationArchived}
	media := []*fake.Media{
		nil,
		{MediaStatus: convo.MediaAvailable, MimeType: "image/png", FileSize: 512},
		{MediaStatus: convo.MediaUnknown},
		{MediaStatus: convo.MediaNoReference},
	}
	records := len(chans)
	for i := 0; records < n; i++ {
		ref := fmt.Sprintf("ct%d", i)
		acc := chans[i%len(chans)]
		ct := fake.Contact{Ref: ref, ChannelAccountID: acc.Ref, Name: fmt.Sprintf("Contact %d", i)}
		if acc.Channel != convo.ChannelWebchat {
			ct.PhoneNumber = fmt.Sprintf("55119%08d", i)
		}
		co.Contacts = append(co.Contacts, ct)
		cv := fake.Conversation{ContactID: ref, Status: statuses[i%len(statuses)]}
		if i%3 == 0 {
			cv.AssignedTo = "agent"
		}
		base := time.Duration(i%40)*24*time.Hour + time.Duration(i%23)*time.Hour + time.Duration(i)*time.Minute
		for j := range 1 + i%6 {
			m := fake.Message{Sender: fake.SenderContact, Text: fmt.Sprintf("message %d of %d", j, i)}
			switch j % 4 {
			case 1:
				m.Sender = fake.SenderAgent
			case 3:
				m.Sender = fake.SenderAutomation
			}
			if md := media[(i+j/2)%len(media)]; md != nil && j%2 == 0 {
				c := *md
				m.Media, m.Type = &c, convo.MessageImage
			}
			if (i+j)%11 == 0 {
				m = fake.Message{Sender: fake.SenderSystem}
			}
			if (i+j)%7 == 0 && m.Sender != fake.SenderSystem {
				m.Reactions = []fake.Reaction{{Emoji: "👍"}}
			}
			m.Ago = (base - time.Duration(j)*10*time.Minute + time.Hour).String()
			cv.Messages = append(cv.Messages, m)
		}
		if i%17 == 0 {
			cv.Messages = nil // never engaged
		}
		co.Conversations = append(co.Conversations, cv)
		records += 2 + len(cv.Messages)
	}
	return &fake.Seed{Companies: []fake.CompanySeed{co}}
}

// Size counts the records of a seed: channels, contacts, conversations and
// messages.
func Size(seed *fake.Seed) (channels, contacts, conversations, messages int) {
	for _, co := range seed.Companies {
		channels += len(co.Channels)
		contacts += len(co.Contacts)
		conversations += len(co.Conversations)
		for _, cv := range co.Conversations {
			messages += len(cv.Messages)
		}
	}
	return
}
