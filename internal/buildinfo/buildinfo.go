// Package buildinfo names a build of one of the module's programs, as
// their --version prints it.
package buildinfo

import (
	"runtime"
	"runtime/debug"

	convo "github.com/convoapi/convo-go"
)

// Line is what program's --version prints: the module's version (the
// SDK's, which the programs ship with), then what the build knows of
// itself: the version go install recorded, the commit of a build from a
// clone (and whether its tree was modified), and the Go version.
func Line(program string) string {
	return line(program, readBuildInfo())
}

// readBuildInfo is debug.ReadBuildInfo's answer, nil when it has none.
func readBuildInfo() *debug.BuildInfo {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return nil
	}
	return bi
}

func line(program string, bi *debug.BuildInfo) string {
	s := program + " " + convo.Version
	if bi != nil {
		if v := bi.Main.Version; v != "" && v != "(devel)" {
			s += " (module " + v + ")"
		}
		var rev, modified string
		for _, kv := range bi.Settings {
			switch kv.Key {
			case "vcs.revision":
				rev = kv.Value
			case "vcs.modified":
				modified = kv.Value
			}
		}
		if rev != "" {
			s += " commit " + rev[:min(12, len(rev))]
			if modified == "true" {
				s += " (modified)"
			}
		}
	}
	return s + " " + runtime.Version()
}
