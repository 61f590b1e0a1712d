package main

import (
	"fmt"
	"io"

	"github.com/convoapi/convo-go/internal/buildinfo"
)

// versionLine is what --version prints (see buildinfo.Line).
func versionLine() string { return buildinfo.Line("convofake") }

// printVersion writes the version line on w.
func printVersion(w io.Writer) { fmt.Fprintln(w, versionLine()) }
