package conformance

import (
	"context"
	"net/http"
)

func channelChecks() []*check {
	return []*check{
		{id: "channels/list", basis: BasisSpec, fn: checkChannels,
			title: "GET /channels: envelope, channel accounts with their capabilities, no sms"},
	}
}

func checkChannels(_ context.Context, r *runner, c *check) {
	ex := r.d.channelsEx
	if ex == nil {
		c.skipf("the channel list could not be read (see %s)", authGateID)
		return
	}
	data, ok := envelope(c, ex, http.StatusOK)
	if !ok {
		return
	}
	items, ok := data.array("items")
	if !ok {
		return
	}
	for i, v := range items {
		f, ok := data.item("items", i, v)
		if !ok {
			continue
		}
		f.uuid("id")
		ch, _ := f.str("channel", false, "chatapp", "botapp")
		f.str("display_name", false)
		f.str("provider_identifier", false)
		f.str("status", false, "connected")
		caps, ok := f.object("capabilities", false)
		if !ok {
			continue
		}
		if types, ok := caps.array("message_types"); ok {
			for j, t := range types {
				if _, ok := t.(string); !ok {
					c.failf(ex, "%s.message_types[%d]: want a string, got %s", caps.where, j, kind(t))
				}
			}
		}
		caps.integer("max_text_length", false)
		caps.integer("max_caption_length", true)
		window, hasWindow := caps.integer("session_window_hours", true)
		tmpl, ok := caps.boolean("requires_template_outside_window")
		if ch == "chatapp" && ok && !tmpl {
			c.failf(ex, "%s: a chatapp account has requires_template_outside_window false", f.where)
		}
		if ch == "chatapp" && hasWindow && window != 24 {
			c.failf(ex, "%s: a chatapp account has session_window_hours %d, want 24", f.where, window)
		}
		r.d.channels = append(r.d.channels, f.m)
	}
}
