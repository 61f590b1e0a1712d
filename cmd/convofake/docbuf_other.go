//go:build !linux

package main

// newDocBuffer returns an empty buffer of capacity n for a seed document
// that the server keeps (see the Linux build, which maps big ones on huge
// pages).
func newDocBuffer(n int) []byte { return make([]byte, 0, n) }
