package fake

// shortcut is one of the caches and shortcuts of the fake's hot paths:
// each gives the same bytes as the plain path it skips. A server built
// with some of them off (the tests' withShortcutsOff) takes the plain
// path, so that a differential test holds each one to the plain answer
// and a benchmark measures what each one saves.
type shortcut uint8

const (
	// shortcutPages keeps the encoded message pages read lately
	// (messageCache.pages).
	shortcutPages shortcut = 1 << iota
	// shortcutMessages keeps the encoded messages read lately
	// (messageCache.messages).
	shortcutMessages
	// shortcutChannels keeps the encoded answer of GET /channels while the
	// accounts stay the same (channelsData).
	shortcutChannels
	// shortcutFastRoute routes plain API paths without the ServeMux
	// (fastRoute).
	shortcutFastRoute
	// shortcutTimeTexts keeps the last Date header and timestamp made
	// (timeCache).
	shortcutTimeTexts

	allShortcuts = shortcutPages | shortcutMessages | shortcutChannels | shortcutFastRoute | shortcutTimeTexts
)

// on reports whether the server takes shortcut k.
func (s *Server) on(k shortcut) bool { return s.shortcutsOff&k == 0 }

// withShortcutsOff turns the shortcuts of off off.
func withShortcutsOff(off shortcut) Option {
	return func(c *config) { c.shortcutsOff = off }
}
