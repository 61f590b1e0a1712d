package main

import (
	"runtime"
	"runtime/debug"

	convo "github.com/convoapi/convo-go"
)

// versionLine is what --version prints: the module's version (the SDK's,
// which convocheck ships with), the version go install recorded, the
// commit of a build from a clone, and the Go version.
func versionLine() string {
	line := "convocheck " + convo.Version
	if bi, ok := debug.ReadBuildInfo(); ok {
		if v := bi.Main.Version; v != "" && v != "(devel)" {
			line += " (module " + v + ")"
		}
		var rev, modified string
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value
			case "vcs.modified":
				modified = s.Value
			}
		}
		if rev != "" {
			line += " commit " + rev[:min(12, len(rev))]
			if modified == "true" {
				line += " (modified)"
			}
		}
	}
	return line + " " + runtime.Version()
}
