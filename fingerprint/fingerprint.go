// Package fingerprint decides when two messages from different runs are "the
// same message", and when two violations are "the same bug".
//
// Minimization replays a failing trace with parts of it removed. The messages
// of the modified run are fresh values: their IDs differ, and contents that
// count things (sequence numbers, batch sizes) may differ too. To follow the
// original schedule anyway, demi matches a pending message to an original
// delivery by its fingerprint (DEMi paper §3.2, Observation #2):
//
//   - By default the fingerprint is the message's type name plus all of its
//     fields, walked by reflection in a fixed order (map entries are combined
//     order-independently), so it is deterministic across runs.
//   - A struct field tagged `demi:"-"` is masked: it does not take part in
//     the fingerprint. Use it for sequence numbers, cookies, counters.
//   - Protocol buffer messages are fingerprinted by their deterministic wire
//     encoding, never by their unexported internals (see proto.go).
//   - A user Func replaces the default for the messages it recognizes; a
//     system can carry one (record.System.Fingerprint, used through For).
//
// The coarse match of Observation #3 is the type alone: FP.Type. Two
// fingerprints are compared as 64-bit hashes; a Fingerprinter caches the
// per-type layout (which fields are masked) so that the hot path of a
// schedule does no reflection on struct tags.
//
// The violation fingerprint (record.Violation.Fingerprint) is the "same
// bug" key; record.Violation.Same is the one function that compares two.
package fingerprint

import (
	"math"
	"reflect"
	"slices"

	"github.com/demi-project/demi/internal/hashing"
	"github.com/demi-project/demi/record"
)

// FP is a message fingerprint: Type is the hash of the message's type name
// (the coarse match), Full the hash of the type and every unmasked field.
type FP struct {
	Type uint64
	Full uint64
}

// Func is a user fingerprint function. It returns the fingerprint string of
// m and true, or false to fall back to the default fingerprint.
type Func func(m record.Message) (string, bool)

// Fingerprinter computes message fingerprints. It caches per-type layouts and
// is not safe for concurrent use: give each goroutine its own (they are
// cheap).
type Fingerprinter struct {
	user  Func
	infos map[reflect.Type]*typeInfo
}

// typeInfo is what a Fingerprinter caches of a type, found by one map
// lookup: its name's hash, whether it is a protobuf message (protoType)
// and, for a struct type, the indices of its unmasked fields (see layout).
type typeInfo struct {
	hash   uint64
	proto  bool
	layout []int
	// addr: a value of the type holds a protobuf struct by value (itself,
	// or in a field or an array element, not behind a pointer), which
	// the walk reaches through its address only if the value is
	// addressable (see Of).
	addr bool
}

// New returns a Fingerprinter using user (may be nil) before the default.
func New(user Func) *Fingerprinter {
	return &Fingerprinter{user: user, infos: map[reflect.Type]*typeInfo{}}
}

// maxDepth bounds the reflection walk so that cyclic values terminate.
const maxDepth = 32

// Of returns the fingerprint of m.
func (f *Fingerprinter) Of(m record.Message) FP {
	t := reflect.TypeOf(m)
	th := f.typeHash(t)
	if f.user != nil {
		if s, ok := f.user(m); ok {
			return FP{Type: th, Full: hashing.String(th^0x5bd1e995, s)}
		}
	}
	h := th
	if m != nil {
		v := reflect.ValueOf(m)
		if f.info(t).addr {
			// An addressable copy, so that protobuf messages held by
			// value can be marshalled through their address.
			v = reflect.New(t).Elem()
			v.Set(reflect.ValueOf(m))
		}
		h = f.walk(h, v, 0)
	}
	return FP{Type: th, Full: hashing.Finish(h)}
}

// TypeOf returns the coarse fingerprint of m: the hash of its type name.
func (f *Fingerprinter) TypeOf(m record.Message) uint64 { return f.typeHash(reflect.TypeOf(m)) }

func (f *Fingerprinter) typeHash(t reflect.Type) uint64 { return f.info(t).hash }

// info returns (and caches) what the walk needs of type t.
func (f *Fingerprinter) info(t reflect.Type) *typeInfo {
	if in, ok := f.infos[t]; ok {
		return in
	}
	in := &typeInfo{hash: nameHash(t)}
	if t != nil {
		in.proto = protoType(t)
		if t.Kind() == reflect.Struct {
			in.layout = layout(t)
		}
		in.addr = holdsProto(t, 0)
	}
	f.infos[t] = in
	return in
}

// nameHash hashes the name of type t.
func nameHash(t reflect.Type) uint64 {
	name := "<nil>"
	if t != nil {
		if t.Kind() == reflect.Pointer {
			name = "*" + t.Elem().PkgPath() + "." + t.Elem().Name()
		} else {
			name = t.PkgPath() + "." + t.Name()
		}
		if t.Name() == "" && (t.Kind() != reflect.Pointer || t.Elem().Name() == "") {
			name = t.String()
		}
	}
	return hashing.String(hashing.Seed, name)
}

// layout returns the indices of the struct fields that take part in the
// fingerprint (those not tagged demi:"-").
// holdsProto reports whether a value of type t holds a protobuf struct
// by value: t itself, a field or an array element, recursively, not
// behind a pointer, slice, map or interface (whose elements the walk
// reaches addressable, or never as protobuf structs).
func holdsProto(t reflect.Type, depth int) bool {
	if depth > maxDepth {
		return false
	}
	switch t.Kind() {
	case reflect.Struct:
		if protoType(t) {
			return true
		}
		for i := 0; i < t.NumField(); i++ {
			if holdsProto(t.Field(i).Type, depth+1) {
				return true
			}
		}
	case reflect.Array:
		return holdsProto(t.Elem(), depth+1)
	}
	return false
}

func layout(t reflect.Type) []int {
	l := make([]int, 0, t.NumField())
	for i := 0; i < t.NumField(); i++ {
		if t.Field(i).Tag.Get("demi") == "-" {
			continue
		}
		l = append(l, i)
	}
	return l
}

func (f *Fingerprinter) walk(h uint64, v reflect.Value, depth int) uint64 {
	if depth > maxDepth {
		return hashing.Mix(h, 0xdead)
	}
	h = hashing.Mix(h, uint64(v.Kind()))
	var in *typeInfo
	if k := v.Kind(); k == reflect.Pointer || k == reflect.Struct {
		in = f.info(v.Type())
		if in.proto && (k == reflect.Pointer || v.CanAddr()) {
			return f.protoHash(h, v)
		}
	}
	switch v.Kind() {
	case reflect.Bool:
		if v.Bool() {
			return hashing.Mix(h, 1)
		}
		return hashing.Mix(h, 0)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return hashing.Mix(h, uint64(v.Int()))
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return hashing.Mix(h, v.Uint())
	case reflect.Float32, reflect.Float64:
		return hashing.Mix(h, math.Float64bits(v.Float()))
	case reflect.Complex64, reflect.Complex128:
		c := v.Complex()
		return hashing.Mix(hashing.Mix(h, math.Float64bits(real(c))), math.Float64bits(imag(c)))
	case reflect.String:
		return hashing.String(h, v.String())
	case reflect.Slice:
		if v.IsNil() {
			return hashing.Mix(h, 0)
		}
		fallthrough
	case reflect.Array:
		n := v.Len()
		h = hashing.Mix(h, uint64(n)+1)
		if v.Type().Elem().Kind() == reflect.Uint8 && v.Kind() == reflect.Slice {
			return hashing.String(h, string(v.Bytes()))
		}
		for i := 0; i < n; i++ {
			h = f.walk(h, v.Index(i), depth+1)
		}
		return h
	case reflect.Map:
		if v.IsNil() {
			return hashing.Mix(h, 0)
		}
		// Order-independent: hash each entry alone, sort, then combine.
		keys := make([]uint64, 0, v.Len())
		it := v.MapRange()
		for it.Next() {
			e := f.walk(0x243f6a8885a308d3, it.Key(), depth+1)
			e = f.walk(e, it.Value(), depth+1)
			keys = append(keys, e)
		}
		slices.Sort(keys)
		h = hashing.Mix(h, uint64(len(keys))+1)
		for _, k := range keys {
			h = hashing.Mix(h, k)
		}
		return h
	case reflect.Struct:
		h = hashing.Mix(h, in.hash)
		for _, i := range in.layout {
			h = hashing.Mix(h, uint64(i))
			h = f.walk(h, v.Field(i), depth+1)
		}
		return h
	case reflect.Pointer:
		if v.IsNil() {
			return hashing.Mix(h, 0)
		}
		return f.walk(hashing.Mix(h, 1), v.Elem(), depth+1)
	case reflect.Interface:
		if v.IsNil() {
			return hashing.Mix(h, 0)
		}
		e := v.Elem()
		return f.walk(hashing.Mix(h, f.typeHash(e.Type())), e, depth+1)
	default: // func, chan, unsafe pointer: only the type takes part
		return hashing.Mix(h, f.typeHash(v.Type()))
	}
}
