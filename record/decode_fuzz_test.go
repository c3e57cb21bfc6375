package record_test

import (
	"bytes"
	"errors"
	"testing"

	"github.com/demi-project/demi/record"
)

// FuzzDecode feeds arbitrary bytes to the trace decoder. Whatever the input,
// Decode must return a trace or a *FormatError, never panic, and a trace it
// accepts must survive a round trip: encoding it and decoding the result
// gives the same bytes again.
//
// Run it with: go test ./record -run '^$' -fuzz FuzzDecode -fuzztime 60s
// The seed corpus is below and in testdata/fuzz/FuzzDecode.
func FuzzDecode(f *testing.F) {
	gossip := gossipSystem(record.FIFO)
	gossip.Invariant = gotAtLeast(8)
	for _, tr := range []*record.Trace{
		everyKind(f),
		fuzz(f, gossip, record.FuzzConfig{Seed: 1, MaxSteps: 60}),
		{Header: record.Header{System: "probe", Network: "fifo"}},
	} {
		f.Add(encode(f, tr))
	}
	f.Add([]byte{})
	f.Add([]byte("demi-trace"))
	f.Add([]byte{0x81, 0xa1, 'x', 0x91, 0x91, 0x91, 0x90})
	f.Add([]byte{0xdf, 0xff, 0xff, 0xff, 0xff})
	cat := catalog()
	f.Fuzz(func(t *testing.T, data []byte) {
		tr, sys, err := record.Decode(bytes.NewReader(data), cat)
		if err != nil {
			var fe *record.FormatError
			if !errors.As(err, &fe) {
				t.Fatalf("%T is not a *FormatError: %v", err, err)
			}
			if tr != nil || sys != nil {
				t.Fatal("a trace and an error")
			}
			return
		}
		var once, twice bytes.Buffer
		if err := tr.Encode(&once); err != nil {
			t.Fatalf("re-encode: %v", err)
		}
		tr2, _, err := record.Decode(bytes.NewReader(once.Bytes()), cat)
		if err != nil {
			t.Fatalf("decode of a re-encoded trace: %v", err)
		}
		if err := tr2.Encode(&twice); err != nil {
			t.Fatalf("re-encode: %v", err)
		}
		if !bytes.Equal(once.Bytes(), twice.Bytes()) {
			t.Fatal("encode(decode(encode(t))) != encode(t)")
		}
	})
}
