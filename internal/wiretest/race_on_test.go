//go:build race

package wiretest

// raceOn: the tests run under the race detector; the convofake they start
// is built with it too, as its own tests run it.
const raceOn = true
