//go:build !race

package wiretest

// raceOn: the tests run under the race detector (see race_on_test.go).
const raceOn = false
