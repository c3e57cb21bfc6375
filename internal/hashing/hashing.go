// Package hashing is demi's one 64-bit hash, used wherever a value's
// identity is reduced to a number: message fingerprints (package
// fingerprint), the schedules and transitions a check has explored (dpor),
// the states of the optimum search (optimal). The hashes are compared for
// equality only, within one process; they are never stored.
//
// Mix folds one word into a running hash (a multiply-rotate round in the
// style of xxHash), String folds a string, Finish scrambles a hash so that
// every input bit affects every output bit (the final mix of MurmurHash3),
// for hashes that are added together or used as keys after few rounds.
package hashing

import "math/bits"

// Seed is a conventional non-zero starting value for a hash.
const Seed uint64 = 0x9e3779b97f4a7c15

// Mix folds x into h.
func Mix(h, x uint64) uint64 {
	h ^= x * 0xc2b2ae3d27d4eb4f
	return bits.RotateLeft64(h, 31) * 0x9e3779b185ebca87
}

// String folds s into h: its length, then its bytes eight at a time.
func String(h uint64, s string) uint64 {
	h = Mix(h, uint64(len(s)))
	for len(s) >= 8 {
		x := uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
			uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
		h = Mix(h, x)
		s = s[8:]
	}
	var x uint64
	for i := 0; i < len(s); i++ {
		x |= uint64(s[i]) << (8 * i)
	}
	return Mix(h, x)
}

// Bytes folds b into h, as String does.
func Bytes(h uint64, b []byte) uint64 { return String(h, string(b)) }

// Finish scrambles h (every input bit affects every output bit).
func Finish(h uint64) uint64 {
	h ^= h >> 33
	h *= 0xff51afd7ed558ccd
	h ^= h >> 33
	return h
}
