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
	var items []convo.ChannelAccount
	s.withStore(readOnly, func() *apiError {
		items = make([]convo.ChannelAccount, 0, len(co.accounts))
		for _, a := range co.accounts {
			if a.channel != convo.ChannelChatapp && a.channel != convo.ChannelBotapp {
				continue
			}
			items = append(items, convo.ChannelAccount{
				ID: a.id, Channel: a.channel, DisplayName: a.displayName, ProviderIdentifier: a.provider,
				Status: "connected", Capabilities: capabilitiesFor(a.channel),
			})
		}
		return nil
	})
	s.writeJSON(w, http.StatusOK, struct {
		Items []convo.ChannelAccount `json:"items"`
	}{items})
}
