package fake_test

import (
	"context"
	"fmt"
	"log"

	convo "github.com/convoapi/convo-go"
	"github.com/convoapi/convo-go/fake"
)

// A second company, isolated from the default one, from its seed.
func ExampleServer_AddCompanySeed() {
	s := fake.NewServer()
	defer s.Close()
	co, err := s.AddCompanySeed(fake.CompanySeed{
		APIKey:   "ck_job_42",
		Channels: []fake.ChannelAccount{{Ref: "line", Channel: convo.ChannelChatapp, ProviderIdentifier: "5511940000001"}},
		Contacts: []fake.Contact{{ChannelAccountID: "line", PhoneNumber: "5511987654321", Name: "Ana"}},
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(len(co.Contacts()), len(s.Company().Contacts())) // the default company sees nothing of it
	// Output: 1 0
}

func ExampleCompany_Load() {
	s := fake.NewServer()
	defer s.Close()
	co := s.Company()
	err := co.Load(fake.CompanySeed{
		Channels: []fake.ChannelAccount{{Ref: "line", Channel: convo.ChannelChatapp, ProviderIdentifier: "5511940000001"}},
		Contacts: []fake.Contact{{ChannelAccountID: "line", PhoneNumber: "5511987654321", Name: "Ana"}},
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(co.Contacts()[0].Name)
	fmt.Println(co.Load(fake.CompanySeed{}), len(co.Contacts())) // empty: the company is emptied
	// Output:
	// Ana
	// <nil> 0
}

func ExampleCompany_ExportSeed() {
	s := fake.NewServer(fake.WithSeed(fake.DemoSeed()))
	defer s.Close()
	cs, ok := s.Company().ExportSeed()
	fmt.Println(ok, len(cs.Channels), len(cs.Contacts))
	// Output: true 4 9
}

func ExampleCompany_Requests() {
	s := fake.NewServer()
	defer s.Close()
	other, err := s.AddCompanySeed(fake.CompanySeed{APIKey: "ck_other"})
	if err != nil {
		log.Fatal(err)
	}
	if _, err := s.Client().Channels.List(context.Background()); err != nil {
		log.Fatal(err)
	}
	fmt.Println(len(s.Company().Requests()), len(other.Requests()))
	// Output: 1 0
}

func ExampleCompany_ClearRequests() {
	s := fake.NewServer()
	defer s.Close()
	if _, err := s.Client().Channels.List(context.Background()); err != nil {
		log.Fatal(err)
	}
	s.Company().ClearRequests()
	fmt.Println(len(s.Company().Requests()), len(s.Requests()))
	// Output: 0 0
}

// Two tenants loaded from one fixture hold the same ids, each its own.
func ExampleCompany_Contact() {
	s := fake.NewServer()
	defer s.Close()
	fixture := fake.CompanySeed{
		Channels: []fake.ChannelAccount{{ID: "0b6f2c1e-1111-4a5b-9c3d-000000000001", Channel: convo.ChannelChatapp}},
		Contacts: []fake.Contact{{ID: "0b6f2c1e-2222-4a5b-9c3d-000000000001", ChannelAccountID: "0b6f2c1e-1111-4a5b-9c3d-000000000001",
			PhoneNumber: "5511987654321", Name: "Ana"}},
	}
	fixture.APIKey = "ck_job_1"
	job1, err := s.AddCompanySeed(fixture)
	if err != nil {
		log.Fatal(err)
	}
	fixture.APIKey = "ck_job_2"
	job2, err := s.AddCompanySeed(fixture)
	if err != nil {
		log.Fatal(err)
	}
	c1, _ := job1.Contact("0b6f2c1e-2222-4a5b-9c3d-000000000001")
	c2, _ := job2.Contact("0b6f2c1e-2222-4a5b-9c3d-000000000001")
	fmt.Println(c1.Name, c1.CompanyID == job1.ID(), c2.CompanyID == job2.ID())
	// Output: Ana true true
}

func ExampleCompany_Conversation() {
	s := fake.NewServer(fake.WithReadableIDs())
	defer s.Close()
	co := s.AddCompany("ck_job_1")
	acc := co.AddChannel(fake.ChannelAccount{Channel: convo.ChannelChatapp})
	ct := co.AddContact(fake.Contact{ChannelAccountID: acc, PhoneNumber: "5511987654321"})
	co.AddConversation(fake.Conversation{ID: "conv-1", ContactID: ct, Status: convo.ConversationResolved})
	cv, ok := co.Conversation("conv-1")
	_, inDefault := s.Company().Conversation("conv-1")
	fmt.Println(ok, cv.Status, inDefault)
	// Output: true resolved false
}

func ExampleCompany_Message() {
	s := fake.NewServer()
	defer s.Close()
	co := s.AddCompany("ck_job_1")
	acc := co.AddChannel(fake.ChannelAccount{Channel: convo.ChannelChatapp})
	ct := co.AddContact(fake.Contact{ChannelAccountID: acc, PhoneNumber: "5511987654321"})
	cv := co.AddConversation(fake.Conversation{ContactID: ct})
	co.AddMessage(cv, fake.Message{MessageID: "msg-1", Text: "hello"})
	m, ok := co.Message("msg-1")
	fmt.Println(ok, m.Text, m.Direction)
	// Output: true hello inbound
}

func ExampleCompany_Reset() {
	s := fake.NewServer()
	defer s.Close()
	co, err := s.AddCompanySeed(fake.CompanySeed{
		APIKey:   "ck_job_1",
		Channels: []fake.ChannelAccount{{Ref: "line", Channel: convo.ChannelChatapp}},
		Contacts: []fake.Contact{{ChannelAccountID: "line", PhoneNumber: "5511987654321", Name: "Ana"}},
	})
	if err != nil {
		log.Fatal(err)
	}
	co.AddContact(fake.Contact{ChannelAccountID: co.Channels()[0].ID, PhoneNumber: "5511911112222"})
	fmt.Println(len(co.Contacts()))
	if err := co.Reset(); err != nil {
		log.Fatal(err)
	}
	fmt.Println(len(co.Contacts()), co.APIKey())
	// Output:
	// 2
	// 1 ck_job_1
}
