//go:build linux

package testkit

import (
	"runtime"
	"syscall"
	"testing"
	"time"
)

// Run calls subject then baseline once per iteration of b's loop and
// reports the ratio of the CPU time each took as x-static, and each one's
// CPU time per call as <name>-cpu-ns/op and static-cpu-ns/op. CPU time is
// the thread's own (the goroutine is locked to it), so the time the thread
// waits for a core on a busy machine counts for neither, and the load of
// the moment weighs on both alike; the background work of the garbage
// collector, on other threads, counts for neither either.
func Run(b *testing.B, name string, subject, baseline func()) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var inSubject, inBaseline time.Duration
	for b.Loop() {
		start := threadCPU()
		subject()
		mid := threadCPU()
		baseline()
		end := threadCPU()
		inSubject, inBaseline = inSubject+mid-start, inBaseline+end-mid
	}
	b.ReportMetric(float64(inSubject)/float64(inBaseline), "x-static")
	b.ReportMetric(float64(inSubject)/float64(b.N), name+"-cpu-ns/op")
	b.ReportMetric(float64(inBaseline)/float64(b.N), "static-cpu-ns/op")
}

// threadCPU is the CPU time the calling thread has used, user and system,
// as getrusage(RUSAGE_THREAD) tells it (to the microsecond; the sums over
// a benchmark's many calls average the rounding out).
func threadCPU() time.Duration {
	const rusageThread = 1 // RUSAGE_THREAD, Linux's
	var ru syscall.Rusage
	if err := syscall.Getrusage(rusageThread, &ru); err != nil {
		panic(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
