package main

import "github.com/convoapi/convo-go/internal/buildinfo"

// versionLine is what --version prints (see buildinfo.Line).
func versionLine() string { return buildinfo.Line("convocheck") }
