// Package eventkey encodes a record.Event's fields for memo keys: the
// minimizer's check cache (a candidate plan's steps) and optimal.Proofs (a
// search's external events). Two events encode alike exactly when every
// field is equal and, for an external event, its message encodes alike
// (record.EncodeMessage); a delivery's message is left out (its ID names it).
package eventkey

import (
	"encoding/binary"

	"github.com/demi-project/demi/record"
)

// Append appends e's encoding to b; ok is false if an external event's
// message cannot be encoded.
func Append(b []byte, e *record.Event) (_ []byte, ok bool) {
	b = binary.AppendUvarint(b, uint64(e.Kind))
	b = binary.AppendUvarint(b, uint64(e.ID))
	b = binary.AppendVarint(b, int64(e.Cause))
	for _, f := range [...]string{string(e.From), string(e.To), e.Timer, string(e.Actor)} {
		b = String(b, f)
	}
	for _, side := range [2][]record.ActorID{e.A, e.B} {
		b = binary.AppendUvarint(b, uint64(len(side)))
		for _, a := range side {
			b = String(b, string(a))
		}
	}
	b = String(b, e.Cond)
	b = binary.AppendVarint(b, int64(e.Limit))
	b = binary.AppendVarint(b, int64(e.At))
	if e.Kind.IsExternal() && e.Msg != nil {
		// An external event's message is injected as it is.
		b = String(b, record.TypeName(e.Msg))
		enc, err := record.EncodeMessage(e.Msg)
		if err != nil {
			return b, false
		}
		b = String(b, string(enc))
	}
	return b, true
}

// String appends s, its length first.
func String(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}
