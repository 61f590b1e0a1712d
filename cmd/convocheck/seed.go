package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/convoapi/convo-go/conformance"
)

const seedUsage = `Usage: convocheck seed FILE > seed.json

Turns the recording FILE (of convocheck record, or conformance.Recorder)
into a seed document for convofake --seed: a fake started from it answers
the recorded requests as the recorded server did (convocheck --replay
checks that). What the recording cannot show is decided and said on
standard error, one note a line.
`

// runSeed is convocheck seed: the seed on stdout, the notes on stderr.
func runSeed(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("convocheck seed", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, seedUsage) }
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() != 1 {
		fmt.Fprintln(stderr, "convocheck seed: give one recording FILE")
		return 2
	}
	f, err := os.Open(fs.Arg(0))
	if err != nil {
		fmt.Fprintln(stderr, "convocheck seed:", err)
		return 2
	}
	defer f.Close()
	seed, notes, err := conformance.SeedFromRecording(f)
	if err != nil {
		fmt.Fprintln(stderr, "convocheck seed:", err)
		return 2
	}
	for _, n := range notes {
		fmt.Fprintln(stderr, "note:", n)
	}
	if err := conformance.WriteSeed(stdout, seed); err != nil {
		fmt.Fprintln(stderr, "convocheck seed:", err)
		return 1
	}
	return 0
}
