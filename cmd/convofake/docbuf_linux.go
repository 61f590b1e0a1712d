//go:build linux

package main

import "syscall"

// hugePage is the size of a transparent huge page on the platforms Go
// runs Linux on (x86-64, arm64 with 4 KiB pages).
const hugePage = 2 << 20

// newDocBuffer returns an empty buffer of capacity n for a seed document
// that the server keeps for the life of the process (its Reset copy,
// fake.WithSeedDocument). A document of a huge page or more gets memory
// of its own, mapped and advised MADV_HUGEPAGE, so that the kernel backs
// it with huge pages where transparent huge pages are on or "madvise" (a
// common default) rather than with 4 KiB pages faulted in one by one: on
// a virtual machine that maps its guest's memory lazily a fault cost some
// 15 µs, and reading a 23 MB state file into the heap took 6,000 of them,
// 90 ms of a 650 ms start; this way, a dozen. The mapping is never
// unmapped, as the server holds the document till the process ends. A
// small document, or a failed mapping, takes the heap.
func newDocBuffer(n int) []byte {
	if n < hugePage {
		return make([]byte, 0, n)
	}
	size := (n + hugePage - 1) &^ (hugePage - 1)
	b, err := syscall.Mmap(-1, 0, size, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_ANONYMOUS)
	if err != nil {
		return make([]byte, 0, n)
	}
	_ = syscall.Madvise(b, syscall.MADV_HUGEPAGE) // advice: without it, 4 KiB pages
	return b[:0:n]
}
