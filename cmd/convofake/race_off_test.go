//go:build !race

package main

// raceOn: the tests run under the race detector (see race_on_test.go).
const raceOn = false
