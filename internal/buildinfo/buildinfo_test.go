package buildinfo

import (
	"runtime"
	"runtime/debug"
	"testing"

	"github.com/stretchr/testify/assert"

	convo "github.com/convoapi/convo-go"
)

func TestLine(t *testing.T) {
	v := convo.Version
	tests := []struct {
		name string
		bi   *debug.BuildInfo
		want string
	}{
		{"no build info", nil, "prog " + v},
		{"a build from a clone", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: []debug.BuildSetting{
			{Key: "vcs.revision", Value: "0123456789abcdef0123"}, {Key: "vcs.modified", Value: "false"}}}, "prog " + v + " commit 0123456789ab"},
		{"a modified tree", &debug.BuildInfo{Settings: []debug.BuildSetting{
			{Key: "vcs.revision", Value: "abc"}, {Key: "vcs.modified", Value: "true"}}}, "prog " + v + " commit abc (modified)"},
		{"go install of a version", &debug.BuildInfo{Main: debug.Module{Version: "v0.1.0"}}, "prog " + v + " (module v0.1.0)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want+" "+runtime.Version(), line("prog", tt.bi))
		})
	}
}

func TestLineOfThisBuild(t *testing.T) {
	assert.Regexp(t, `^convocheck `+convo.Version+` .*go1\.`, Line("convocheck"))
}
