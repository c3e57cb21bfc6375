package fingerprint

import (
	"reflect"
	"unsafe"

	"google.golang.org/protobuf/proto"

	"github.com/demi-project/demi/internal/hashing"
	"github.com/demi-project/demi/record"
)

// For returns a Fingerprinter for sys's messages: user when it is not nil,
// else the system's own fingerprint function (record.System.Fingerprint),
// else only the default.
func For(sys *record.System, user Func) *Fingerprinter {
	if user == nil && sys != nil && sys.Fingerprint != nil {
		user = sys.Fingerprint
	}
	return New(user)
}

// Protocol buffer messages (google.golang.org/protobuf) are fingerprinted
// by their deterministic wire encoding, wherever they sit in a message (a
// field, a slice element, the message itself), never by walking their
// structs: a generated message holds unexported internals (a size cache
// that changes once anything has marshalled the message, pointers into the
// type registry) that say nothing about its content, and walking them is
// both unstable and slow. Two messages with equal fields give equal
// encodings; unknown fields take part as they are encoded.

var protoMessage = reflect.TypeFor[proto.Message]()

// deterministic marshals map fields in key order, so equal messages give
// equal bytes.
var deterministic = proto.MarshalOptions{Deterministic: true}

// protoType reports whether values of t are protobuf messages: pointer
// types that implement proto.Message, or struct types whose pointer does
// (a Fingerprinter caches it, see info).
func protoType(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Pointer:
		return t.Implements(protoMessage)
	case reflect.Struct:
		return reflect.PointerTo(t).Implements(protoMessage)
	}
	return false
}

// protoHash folds the wire encoding of the protobuf message v (a pointer,
// or an addressable struct) into h.
func (f *Fingerprinter) protoHash(h uint64, v reflect.Value) uint64 {
	if v.Kind() == reflect.Struct {
		v = v.Addr()
	}
	if v.IsNil() {
		return hashing.Mix(h, 0)
	}
	if !v.CanInterface() { // reached through an unexported field
		v = reflect.NewAt(v.Type().Elem(), v.UnsafePointer())
	}
	b, err := deterministic.Marshal(v.Interface().(proto.Message))
	if err != nil {
		return hashing.String(hashing.Mix(h, 2), err.Error())
	}
	return hashing.String(hashing.Mix(h, 1), unsafe.String(unsafe.SliceData(b), len(b)))
}
