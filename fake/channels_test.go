package fake_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	convo "github.com/convoapi/convo-go"
	"github.com/convoapi/convo-go/fake"
)

func TestChannelsListExact(t *testing.T) {
	s, b := newBasic(t)
	other := s.AddCompany("other")
	other.AddChannel(fake.ChannelAccount{Channel: convo.ChannelChatapp, ProviderIdentifier: "999999999"})

	r := get(t, s, "/channels")
	assert.JSONEq(t, `{"items":[
	  {"id":"`+b.chat+`","channel":"chatapp","display_name":"Support","provider_identifier":"5511900000001","status":"connected",
	   "capabilities":{"message_types":["text","image","document","audio","video"],"max_text_length":4096,
	     "max_caption_length":null,"session_window_hours":24,"requires_template_outside_window":true}},
	  {"id":"`+b.bot+`","channel":"botapp","display_name":"Help bot","provider_identifier":"acme_bot","status":"connected",
	   "capabilities":{"message_types":["text","image","document","audio","video"],"max_text_length":4096,
	     "max_caption_length":1024,"session_window_hours":null,"requires_template_outside_window":false}}
	]}`, r.Data(t, 200))
	assert.NotContains(t, string(r.Body), b.widget, "a webchat widget is never a channel account")
	assert.NotContains(t, string(r.Body), "sms")
}

func TestNoSMSOrWebchatAccounts(t *testing.T) {
	s := newServer(t)
	co := s.Company()
	for _, ch := range []convo.Channel{convo.ChannelSMS, convo.ChannelWebchat, "telegram", ""} {
		assert.Panics(t, func() { co.AddChannel(fake.ChannelAccount{Channel: ch}) }, string(ch))
	}
	require.Len(t, get(t, s, "/channels").Data(t, 200), len(`{"items":[]}`))
}

// The answer is kept between calls while the accounts stay the same, and
// follows every change: an account added, the data cleared, a seed loaded.
func TestChannelsAnswerFollowsTheAccounts(t *testing.T) {
	s := newServer(t)
	co := s.Company()
	ids := func() []string {
		var out struct {
			Items []struct{ ID string } `json:"items"`
		}
		require.NoError(t, json.Unmarshal([]byte(get(t, s, "/channels").Data(t, 200)), &out))
		var got []string
		for _, it := range out.Items {
			got = append(got, it.ID)
		}
		return got
	}
	assert.Empty(t, ids())
	a := co.AddChannel(fake.ChannelAccount{Channel: convo.ChannelChatapp})
	assert.Equal(t, []string{a}, ids())
	assert.Equal(t, []string{a}, ids(), "the same answer again")
	co.AddWebchatWidget("Site")
	assert.Equal(t, []string{a}, ids(), "a widget added: no account listed")
	b := co.AddChannel(fake.ChannelAccount{Channel: convo.ChannelBotapp})
	assert.Equal(t, []string{a, b}, ids())
	s.Clear()
	assert.Empty(t, ids())
	c := s.Company().AddChannel(fake.ChannelAccount{Channel: convo.ChannelChatapp})
	assert.Equal(t, []string{c}, ids())
	require.NoError(t, s.Load(&fake.Seed{Companies: []fake.CompanySeed{{Channels: []fake.ChannelAccount{{Channel: convo.ChannelBotapp, ID: "b0000000-0000-4000-8000-000000000001"}}}}}))
	assert.Equal(t, []string{"b0000000-0000-4000-8000-000000000001"}, ids())
}
