package record_test

import (
	"bytes"
	"errors"
	"strconv"
	"testing"

	"github.com/demi-project/demi/record"
	"github.com/vmihailenco/msgpack/v5"
)

// FuzzHeader varies the fields of a trace header that a hostile file
// controls (system, an option's name and value, network, format, counts,
// the violation's event and fingerprint) in front of the events of a valid
// trace. Whatever they are, Decode returns a trace or a *FormatError and
// never panics; a header it accepts has options within the system's
// declared bounds (so a run of it can be built), a known network, and a
// violation in range.
//
// Run it with: go test ./record -run '^$' -fuzz FuzzHeader -fuzztime 60s
func FuzzHeader(f *testing.F) {
	tr := everyKind(f)
	var buf bytes.Buffer
	if err := tr.Encode(&buf); err != nil {
		f.Fatal(err)
	}
	dec := msgpack.NewDecoder(bytes.NewReader(buf.Bytes()))
	var h0 map[string]any
	if err := dec.Decode(&h0); err != nil {
		f.Fatal(err)
	}
	rest := buf.Bytes()[buf.Len()-dec.Buffered().(*bytes.Reader).Len():]
	events := int64(len(tr.Events))

	f.Add("probe", "size", "3", "fifo", int64(record.FormatVersion), events, int64(0), "fp")
	f.Add("probe", "size", "1000000", "fifo", int64(record.FormatVersion), events, int64(0), "fp")
	f.Add("probe", "size", "-9223372036854775808", "unordered", int64(1), events, int64(-1), "panic: x @ f (a.go:1)")
	f.Add("probe", "flag", "maybe", "bogus", int64(1), events, events, "")
	f.Add("gossip", "", "", "", int64(2), int64(-1), int64(1<<40), "\x1b[31m")
	f.Add("nope", "size", "3", "fifo", int64(0), int64(1<<62), int64(0), "fp")
	cat := catalog()
	f.Fuzz(func(t *testing.T, system, name, value, network string, format, count, vevent int64, fingerprint string) {
		h := map[string]any{}
		for k, v := range h0 {
			h[k] = v
		}
		h["system"], h["network"], h["format"], h["events"] = system, network, format, count
		if name != "" {
			h["options"] = []any{map[string]any{"name": name, "value": value}}
		}
		h["violation"] = map[string]any{"fingerprint": fingerprint, "detail": "d", "event": vevent}
		head, err := msgpack.Marshal(h)
		if err != nil {
			t.Skip()
		}
		got, sys, err := record.Decode(bytes.NewReader(append(head, rest...)), cat)
		if err != nil {
			var fe *record.FormatError
			if !errors.As(err, &fe) {
				t.Fatalf("%T is not a *FormatError: %v", err, err)
			}
			return
		}
		opts, err := sys.Resolve(got.Header.OptionMap())
		if err != nil {
			t.Fatalf("accepted options that do not resolve: %v", err)
		}
		for _, o := range sys.Options {
			if o.Integer() {
				n, err := strconv.Atoi(opts[o.Name])
				if err != nil || n < o.Min || n > o.Max {
					t.Fatalf("accepted %s=%q outside %d to %d", o.Name, opts[o.Name], o.Min, o.Max)
				}
			}
		}
		if n := got.Header.Network; n != "fifo" && n != "unordered" {
			t.Fatalf("accepted network %q", n)
		}
		if v := got.Header.Violation; v != nil && (v.Event < -1 || v.Event >= len(got.Events)) {
			t.Fatalf("accepted violation at event %d of %d", v.Event, len(got.Events))
		}
		if _, err := record.NewSim(sys, opts, 1); err != nil {
			t.Fatalf("a run of an accepted header cannot be built: %v", err)
		}
	})
}
