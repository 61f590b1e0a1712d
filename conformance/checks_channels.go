package conformance

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"
)

func channelChecks() []*check {
	return []*check{
		{id: "channels/list", basis: BasisSpec, spec: "Lists the company's channel accounts that take part in the neutral contract, each with its capabilities block.", fn: checkChannels,
			title: "GET /channels: envelope, channel accounts with their capabilities, no sms"},
		{id: "channels/capability-values", basis: BasisDecision, fn: checkCapabilityValues,
			title: "capabilities hold the values the specification shows: 4096; caption null on chatapp and 1024 on botapp; window 24 and template true on chatapp, null and false on botapp"},
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
		f.str("channel", false, "chatapp", "botapp")
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
		caps.integer("session_window_hours", true)
		caps.boolean("requires_template_outside_window")
		r.d.channels = append(r.d.channels, f.m)
	}
}

// capabilityValues are the values the specification shows for each
// channel's capabilities (as examples: "4096 in both channels shown",
// "null for chatapp, 1024 for botapp"); nil stands for null.
var capabilityValues = map[string]map[string]any{
	"chatapp": {"max_text_length": int64(4096), "max_caption_length": nil, "session_window_hours": int64(24), "requires_template_outside_window": true},
	"botapp":  {"max_text_length": int64(4096), "max_caption_length": int64(1024), "session_window_hours": nil, "requires_template_outside_window": false},
}

// checkCapabilityValues compares each listed account's capabilities with
// the values the specification shows for its channel, and its message
// types with the values seen there.
func checkCapabilityValues(_ context.Context, r *runner, c *check) {
	if len(r.d.channels) == 0 {
		c.skipf("no channel account was listed")
		return
	}
	seenTypes := []string{"text", "image", "document", "audio", "video"}
	for i, ch := range r.d.channels {
		caps, _ := ch["capabilities"].(map[string]any)
		want := capabilityValues[str(ch, "channel")]
		for _, key := range slices.Sorted(maps.Keys(want)) {
			got := caps[key]
			if n, ok := got.(json.Number); ok {
				got, _ = n.Int64()
			}
			if got != want[key] {
				c.failf(r.d.channelsEx, "data.items[%d] (%s): capabilities.%s is %v, the specification shows %v", i, str(ch, "channel"), key, showNull(got), showNull(want[key]))
			}
		}
		types, _ := caps["message_types"].([]any)
		for _, t := range types {
			if s, _ := t.(string); !slices.Contains(seenTypes, s) {
				c.failf(r.d.channelsEx, "data.items[%d]: message type %v is not among the values seen (%s)", i, t, strings.Join(seenTypes, ", "))
			}
		}
	}
}

func showNull(v any) string {
	if v == nil {
		return "null"
	}
	return fmt.Sprint(v)
}
