package fake

import (
	"net/http"

	convo "github.com/convoapi/convo-go"
)

// capabilitiesFor gives the capabilities of each channel: chatapp has no
// stated caption limit, a 24-hour service window and needs templates outside
// it; botapp has a 1024 caption limit, no window, no templates.
func capabilitiesFor(channel convo.Channel) convo.Capabilities {
	c := convo.Capabilities{
		MessageTypes:  []convo.MessageType{convo.MessageText, convo.MessageImage, convo.MessageDocument, convo.MessageAudio, convo.MessageVideo},
		MaxTextLength: 4096,
	}
	if channel == convo.ChannelChatapp {
		h := 24
		c.SessionWindowHours = &h
		c.RequiresTemplateOutsideWindow = true
	} else {
		n := 1024
		c.MaxCaptionLength = &n
	}
	return c
}

// handleChannels serves GET /channels: the company's channel accounts in
// creation order; webchat widgets and SMS never.
func (s *Server) handleChannels(w http.ResponseWriter, r *http.Request, co *company, _ []string) {
	var data []byte
	s.withStore(readOnly, func() *apiError {
		data = co.channelsData(s.on(shortcutChannels))
		return nil
	})
	s.writeEncoded(w, http.StatusOK, part{json: data})
}

// channelsAnswer is the encoded data of GET /channels, and the accounts it
// was made from: how many, and the last.
type channelsAnswer struct {
	n    int
	last *account
	data []byte
}

// channelsData is the data of GET /channels, encoded once per set of
// accounts: accounts are only ever appended and never change, so the same
// count and the same last account mean the same answer. The caller holds
// the state's lock (the read lock is enough: the answer is swapped
// atomically, and two readers that both make it make the same bytes).
func (co *company) channelsData(keep bool) []byte {
	n := len(co.accounts)
	var last *account
	if n > 0 {
		last = co.accounts[n-1]
	}
	if c := co.channels.Load(); keep && c != nil && c.n == n && c.last == last {
		return c.data
	}
	items := make([]convo.ChannelAccount, 0, n)
	for _, a := range co.accounts {
		if a.channel != convo.ChannelChatapp && a.channel != convo.ChannelBotapp {
			continue
		}
		items = append(items, convo.ChannelAccount{
			ID: a.id, Channel: a.channel, DisplayName: a.displayName, ProviderIdentifier: a.provider,
			Status: "connected", Capabilities: capabilitiesFor(a.channel),
		})
	}
	data := encode(struct {
		Items []convo.ChannelAccount `json:"items"`
	}{items})
	if keep {
		co.channels.Store(&channelsAnswer{n: n, last: last, data: data})
	}
	return data
}
