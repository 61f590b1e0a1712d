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
