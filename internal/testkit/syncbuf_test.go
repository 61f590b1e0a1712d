package testkit

import (
	"fmt"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
)

func TestWaitForWakesOnTheWriteThatCompletesTheText(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var b Buffer
		go func() {
			time.Sleep(time.Second)
			fmt.Fprint(&b, "convofake ")
			time.Sleep(time.Second)
			fmt.Fprint(&b, "started\n")
		}()
		start := time.Now()
		assert.True(t, b.WaitFor("started", time.Minute))
		assert.Equal(t, 2*time.Second, time.Since(start), "woken by the second write, not by a poll")
		assert.Equal(t, "convofake started\n", b.String())
	})
}

func TestWaitForGivesUpAtItsTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var b Buffer
		fmt.Fprint(&b, "something else")
		start := time.Now()
		assert.False(t, b.WaitFor("started", 20*time.Second))
		assert.Equal(t, 20*time.Second, time.Since(start))
	})
}

func TestConcurrentWritesAreAllKept(t *testing.T) {
	var b Buffer
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 100 {
				fmt.Fprint(&b, "x")
			}
		})
	}
	wg.Wait()
	assert.Len(t, b.String(), 800)
}
