package fake

// The shortcuts, for the differential test and the benchmarks of package
// fake_test.

// Shortcut is a shortcut of the fake (shortcut), to leave out.
type Shortcut = shortcut

// The shortcuts, by name.
var Shortcuts = map[string]Shortcut{
	"pages":     shortcutPages,
	"messages":  shortcutMessages,
	"channels":  shortcutChannels,
	"fastRoute": shortcutFastRoute,
	"timeTexts": shortcutTimeTexts,
}

// AllShortcuts is every shortcut.
const AllShortcuts = allShortcuts

// WithShortcutsOff builds a server that leaves the shortcuts of off out.
func WithShortcutsOff(off Shortcut) Option { return withShortcutsOff(off) }

// SetShortcutsOff leaves the shortcuts of off out from now on; the caller
// sends no request meanwhile.
func (s *Server) SetShortcutsOff(off Shortcut) { s.shortcutsOff = off }
