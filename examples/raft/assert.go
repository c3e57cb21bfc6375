package raft

import "fmt"

// assertf panics with a formatted message when cond is false. A panic in a
// handler is a violation (the runtime catches it); its fingerprint names the
// message and the function that panicked. Assertions go through this one
// function, kept in its own small file, so that the fingerprint of an
// assertion does not move when the rest of the code is edited.
func assertf(cond bool, format string, args ...any) {
	if !cond {
		panic("assertion failed: " + fmt.Sprintf(format, args...))
	}
}
