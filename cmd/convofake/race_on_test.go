//go:build race

package main

// raceOn: the tests run under the race detector, ten times slower; the
// largest loads are made smaller there.
const raceOn = true
