package fake

import (
	"net/http"

	convo "github.com/convoapi/convo-go"
)

// wireChannel is a channel account of spec §2.2.
type wireChannel struct {
	ID                 string        `json:"id"`
	Channel            convo.Channel `json:"channel"`
	DisplayName        string        `json:"display_name"`
	ProviderIdentifier string        `json:"provider_identifier"`
	Status             string        `json:"status"`
	Capabilities       capabilities  `json:"capabilities"`
}

type capabilities struct {
	MessageTypes                  []string `json:"message_types"`
	MaxTextLength                 int      `json:"max_text_length"`
	MaxCaptionLength              *int     `json:"max_caption_length"`
	SessionWindowHours            *int     `json:"session_window_hours"`
	RequiresTemplateOutsideWindow bool     `json:"requires_template_outside_window"`
}

// capabilitiesFor gives the §2.2 capabilities of each channel: chatapp has no
// stated caption limit, a 24-hour service window and needs templates outside
// it; botapp has a 1024 caption limit, no window, no templates.
func capabilitiesFor(channel convo.Channel) capabilities {
	c := capabilities{
		MessageTypes:  []string{"text", "image", "document", "audio", "video"},
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

// handleChannels serves GET /channels (spec §4.5): the company's channel
// accounts in creation order; webchat widgets and SMS (§1) never.
func (s *Server) handleChannels(w http.ResponseWriter, r *http.Request, co *company, _ []string) {
	s.mu.RLock()
	items := make([]wireChannel, 0, len(co.accounts))
	for _, a := range co.accounts {
		if a.channel != convo.ChannelChatapp && a.channel != convo.ChannelBotapp {
			continue
		}
		items = append(items, wireChannel{
			ID: a.id, Channel: a.channel, DisplayName: a.displayName, ProviderIdentifier: a.provider,
			Status: "connected", Capabilities: capabilitiesFor(a.channel),
		})
	}
	s.mu.RUnlock()
	s.writeJSON(w, r, http.StatusOK, struct {
		Items []wireChannel `json:"items"`
	}{items})
}
