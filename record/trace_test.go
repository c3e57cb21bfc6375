package record_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/demi-project/demi/record"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/vmihailenco/msgpack/v5"
)

// everyKind runs the probe system through every kind of event and returns
// its trace.
func everyKind(t testing.TB) *record.Trace {
	t.Helper()
	b := &behaviour{recv: func(p *probe, ctx *record.Context, from record.ActorID, msg record.Message) {
		switch m := msg.(type) {
		case Ping:
			ctx.Send("b", &Pong{N: m.N, Note: "from " + string(p.id)})
			ctx.SetTimer("retry", Tick{K: "r"})
		case *Pong:
			ctx.Send("a", Ping{N: m.N - 1})
		}
	}}
	sys := probeSystem(3, record.FIFO, b)
	sys.Conditions = map[string]func(record.View) bool{"true": func(record.View) bool { return true }}
	s := newSim(t, sys, append(startAll(sys), record.SendEvent("a", Ping{N: 3}))...)
	deliverAll(t, s, 4)
	apply(t, s,
		record.PartitionEvent([]record.ActorID{"a"}, []record.ActorID{"b", "c"}),
		record.HealEvent([]record.ActorID{"a"}, []record.ActorID{"b", "c"}),
		record.WaitQuiescenceEvent(5),
		record.WaitConditionEvent("true", 0),
		record.KillEvent("c"),
		record.RestartEvent("b"),
		record.SendEvent("b", &Pong{N: 9, Note: "ext"}),
	)
	deliverAll(t, s, 6)
	tr := s.Trace(&record.Violation{Fingerprint: "fp", Detail: "detail", Event: len(s.Events()) - 1})
	tr.Header.Note = "hand-made"
	kinds := map[record.Kind]bool{}
	timer := false
	for _, e := range tr.Events {
		kinds[e.Kind] = true
		timer = timer || e.Timer != ""
	}
	require.Len(t, kinds, 9, "every kind of event is in the trace")
	require.True(t, timer, "a timer fired")
	return tr
}

func catalog() *record.Catalog {
	return record.NewCatalog(probeSystem(3, record.FIFO, nil), gossipSystem(record.FIFO))
}

func TestTraceRoundTrip(t *testing.T) {
	gossip := gossipSystem(record.Unordered)
	gossip.Invariant = gotAtLeast(30)
	tests := []struct {
		name string
		tr   *record.Trace
	}{
		{"every kind", everyKind(t)},
		{"fuzzed", fuzz(t, gossip, record.FuzzConfig{Seed: 7, MaxSteps: 500})},
		{"empty", &record.Trace{Header: record.Header{System: "probe", Network: "fifo"}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			data := encode(t, tc.tr)
			got, sys, err := record.Decode(bytes.NewReader(data), catalog())
			require.NoError(t, err)
			assert.Equal(t, tc.tr.Header.System, sys.Name)
			want := tc.tr.Header
			want.Format, want.EventCount = record.FormatVersion, len(tc.tr.Events)
			got.Header.Magic = ""
			assert.Equal(t, want, got.Header)
			if len(tc.tr.Events) == 0 {
				assert.Empty(t, got.Events)
			} else {
				assert.Equal(t, tc.tr.Events, got.Events)
			}
			assert.Equal(t, data, encode(t, got), "decode then encode gives the same bytes")
		})
	}
}

func TestTraceStreaming(t *testing.T) {
	tr := everyKind(t)
	rd, err := record.NewReader(bytes.NewReader(encode(t, tr)), catalog())
	require.NoError(t, err)
	assert.Equal(t, "probe", rd.System().Name)
	assert.Equal(t, len(tr.Events), rd.Header().EventCount)
	for i := range tr.Events {
		e, err := rd.Next()
		require.NoError(t, err, "event %d", i)
		assert.Equal(t, tr.Events[i], e)
	}
	_, err = rd.Next()
	assert.Equal(t, io.EOF, err)
	_, err = rd.Next()
	assert.Equal(t, io.EOF, err, "EOF again")
}

// rewrite decodes an encoded trace into plain maps, lets f change them and
// encodes the result again.
func rewrite(t testing.TB, data []byte, f func(header map[string]any, events []map[string]any) []map[string]any) []byte {
	t.Helper()
	dec := msgpack.NewDecoder(bytes.NewReader(data))
	var header map[string]any
	require.NoError(t, dec.Decode(&header))
	var events []map[string]any
	for {
		var e map[string]any
		if err := dec.Decode(&e); err != nil {
			require.ErrorIs(t, err, io.EOF)
			break
		}
		events = append(events, e)
	}
	events = f(header, events)
	var buf bytes.Buffer
	enc := msgpack.NewEncoder(&buf)
	enc.SetSortMapKeys(true)
	require.NoError(t, enc.Encode(header))
	for _, e := range events {
		require.NoError(t, enc.Encode(e))
	}
	return buf.Bytes()
}

// firstDelivery is the index of the first delivery in everyKind's trace.
func firstDelivery(events []map[string]any) int {
	for i, e := range events {
		if fmt.Sprint(e["k"]) == fmt.Sprint(uint8(record.Deliver)) {
			return i
		}
	}
	panic("no delivery")
}

func TestDecodeBadInput(t *testing.T) {
	good := encode(t, everyKind(t))
	tests := []struct {
		name string
		data []byte
		want string
	}{
		{"empty", nil, "bad trace header: empty or truncated file"},
		{"one byte", good[:1], "bad trace header: empty or truncated file"},
		{"text", []byte("hello, world\n"), "bad trace header: not a demi trace"},
		{"json", []byte(`{"magic":"demi-trace"}`), "bad trace header: not a demi trace"},
		{"unused code", []byte{0xc1}, "invalid code"},
		{"a number", []byte{0x05}, "not a demi trace"},
		{"deep nesting", append([]byte{0x81, 0xa1, 'x'}, bytes.Repeat([]byte{0x91}, 1000)...), "nested deeper than"},
		{"huge string length", []byte{0x81, 0xa1, 'x', 0xdb, 0xff, 0xff, 0xff, 0xff, 'a'}, "value larger than"},
		{"long string length in a short file", []byte{0x81, 0xa1, 'x', 0xdb, 0x00, 0xff, 0xff, 0xff, 'a'}, "empty or truncated"},
		{"huge map in a short file", []byte{0xdf, 0xff, 0xff, 0xff, 0xff, 0xa1, 'x'}, "empty or truncated"},
		{"wrong magic", rewrite(t, good, func(h map[string]any, e []map[string]any) []map[string]any {
			h["magic"] = "other"
			return e
		}), "missing magic"},
		{"no magic", rewrite(t, good, func(h map[string]any, e []map[string]any) []map[string]any {
			delete(h, "magic")
			return e
		}), "missing magic"},
		{"wrong version", rewrite(t, good, func(h map[string]any, e []map[string]any) []map[string]any {
			h["format"] = record.FormatVersion + 1
			return e
		}), "format version 2, this demi reads version 1"},
		{"unknown system", rewrite(t, good, func(h map[string]any, e []map[string]any) []map[string]any {
			h["system"] = "paxos"
			return e
		}), `unknown system "paxos" (known: gossip, probe)`},
		{"unknown option", rewrite(t, good, func(h map[string]any, e []map[string]any) []map[string]any {
			h["options"] = []any{map[string]any{"name": "color", "value": "red"}}
			return e
		}), `no option "color"`},
		{"negative count", rewrite(t, good, func(h map[string]any, e []map[string]any) []map[string]any {
			h["events"] = -1
			return e
		}), "negative event count"},
		{"violation after the last event", rewrite(t, good, func(h map[string]any, e []map[string]any) []map[string]any {
			h["violation"].(map[string]any)["event"] = len(e)
			return e
		}), "violation at event 21 of 21"},
		{"header of the wrong type", rewrite(t, good, func(h map[string]any, e []map[string]any) []map[string]any {
			h["seed"] = "many"
			return e
		}), "not a demi trace"},
		{"counts disagree", rewrite(t, good, func(h map[string]any, e []map[string]any) []map[string]any {
			h["deliveries"] = 1
			return e
		}), "header counts 1 deliveries"},
		{"missing events", rewrite(t, good, func(h map[string]any, e []map[string]any) []map[string]any {
			return e[:len(e)-2]
		}), "truncated: file ends after"},
		{"trailing event", rewrite(t, good, func(h map[string]any, e []map[string]any) []map[string]any {
			return append(e, e[0])
		}), "trailing data after the"},
		{"trailing byte", append(bytes.Clone(good), 0), "trailing data"},
		{"unknown message type", rewrite(t, good, func(h map[string]any, e []map[string]any) []map[string]any {
			e[firstDelivery(e)]["ty"] = "Paxos"
			return e
		}), `message type "Paxos" is not registered by system probe`},
		{"payload of the wrong shape", rewrite(t, good, func(h map[string]any, e []map[string]any) []map[string]any {
			e[firstDelivery(e)]["p"] = []byte{0xa3, 'a', 'b', 'c'}
			return e
		}), "message Ping"},
		{"delivery without a message", rewrite(t, good, func(h map[string]any, e []map[string]any) []map[string]any {
			delete(e[firstDelivery(e)], "ty")
			return e
		}), "deliver event without a message"},
		{"unknown event kind", rewrite(t, good, func(h map[string]any, e []map[string]any) []map[string]any {
			e[2]["k"] = 42
			return e
		}), "bad trace at event 2: unknown event kind 42"},
		{"kind zero", rewrite(t, good, func(h map[string]any, e []map[string]any) []map[string]any {
			e[0]["k"] = 0
			return e
		}), "unknown event kind 0"},
		{"causal link forward", rewrite(t, good, func(h map[string]any, e []map[string]any) []map[string]any {
			e[firstDelivery(e)]["c"] = 1000
			return e
		}), "causal link 1000 out of range"},
		{"causal link negative", rewrite(t, good, func(h map[string]any, e []map[string]any) []map[string]any {
			e[1]["c"] = -2
			return e
		}), "causal link -2 out of range"},
		{"event not a map", rewrite(t, good, func(h map[string]any, e []map[string]any) []map[string]any {
			e[3] = nil
			return e
		}), "bad trace at event 3"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tr, sys, err := record.Decode(bytes.NewReader(tc.data), catalog())
			requireFormatError(t, err)
			assert.Nil(t, tr)
			assert.Nil(t, sys)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}

func requireFormatError(t *testing.T, err error) {
	t.Helper()
	require.Error(t, err)
	var fe *record.FormatError
	require.True(t, errors.As(err, &fe), "%T is not a *FormatError: %v", err, err)
	assert.NotContains(t, err.Error(), "\n", "one line")
}

func TestDecodeTruncated(t *testing.T) {
	good := encode(t, everyKind(t))
	for cut := 0; cut < len(good); cut++ {
		_, _, err := record.Decode(bytes.NewReader(good[:cut]), catalog())
		requireFormatError(t, err)
		if !strings.Contains(err.Error(), "truncated") {
			t.Fatalf("cut at %d: %v", cut, err)
		}
	}
	_, _, err := record.Decode(bytes.NewReader(good), catalog())
	require.NoError(t, err)
}

func TestDecodeCorrupted(t *testing.T) {
	// Flip bytes of a good trace: each result must decode or give a
	// FormatError, never panic.
	good := encode(t, everyKind(t))
	r := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 2000; i++ {
		data := bytes.Clone(good)
		for k := 0; k <= i%4; k++ {
			data[r.IntN(len(data))] = byte(r.Uint32())
		}
		_, _, err := record.Decode(bytes.NewReader(data), catalog())
		if err != nil {
			requireFormatError(t, err)
		}
	}
}

func TestDecodeRandomBytes(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for i := 0; i < 500; i++ {
		data := make([]byte, r.IntN(300))
		for k := range data {
			data[k] = byte(r.Uint32())
		}
		_, _, err := record.Decode(bytes.NewReader(data), catalog())
		requireFormatError(t, err)
	}
}

func TestWriteReadFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "run.trace")
	tr := everyKind(t)
	require.NoError(t, os.WriteFile(path, []byte("old content"), 0o600))
	require.NoError(t, tr.WriteFile(path))
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Len(t, entries, 1, "no temporary file is left behind")
	info, err := os.Stat(path)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o644), info.Mode().Perm())
	got, sys, err := record.ReadFile(path, catalog())
	require.NoError(t, err)
	assert.Equal(t, "probe", sys.Name)
	assert.Equal(t, tr.Events, got.Events)

	t.Run("missing file", func(t *testing.T) {
		_, _, err := record.ReadFile(filepath.Join(dir, "nope"), catalog())
		assert.ErrorIs(t, err, os.ErrNotExist)
	})
	t.Run("bad file names its path", func(t *testing.T) {
		bad := filepath.Join(dir, "bad.trace")
		require.NoError(t, os.WriteFile(bad, []byte("garbage"), 0o644))
		_, _, err := record.ReadFile(bad, catalog())
		requireFormatError(t, err)
		assert.True(t, strings.HasPrefix(err.Error(), bad+": bad trace header"), err.Error())
	})
	t.Run("unwritable directory", func(t *testing.T) {
		err := tr.WriteFile(filepath.Join(dir, "no", "such", "dir", "x.trace"))
		assert.Error(t, err)
	})
}

func TestEncodeUnencodableMessage(t *testing.T) {
	tr := &record.Trace{Header: record.Header{System: "probe"}, Events: []record.Event{
		{Kind: record.Send, To: "a", Msg: make(chan int), Cause: -1},
	}}
	var buf bytes.Buffer
	err := tr.Encode(&buf)
	assert.ErrorContains(t, err, "encode event 0")
}

func TestFormatErrorUnwraps(t *testing.T) {
	inner := errors.New("inner")
	fe := &record.FormatError{Event: 3, Err: inner}
	assert.ErrorIs(t, fe, inner)
	assert.Equal(t, "bad trace at event 3: inner", fe.Error())
	assert.Equal(t, "bad trace header: inner", (&record.FormatError{Event: -1, Err: inner}).Error())
}

func TestHeaderOptionMap(t *testing.T) {
	h := record.Header{Options: []record.Option{{Name: "a", Value: "1"}, {Name: "b", Value: "x"}}}
	assert.Equal(t, record.Options{"a": "1", "b": "x"}, h.OptionMap())
}

// Ballot has a map: Go iterates maps in random order, the encoding must not.
type Ballot struct{ Votes map[string]int }

func TestMapPayloadsEncodeCanonically(t *testing.T) {
	votes := map[string]int{}
	for i := 0; i < 12; i++ {
		votes[fmt.Sprintf("n%d", i)] = i
	}
	m := Ballot{Votes: votes}
	first, err := record.EncodeMessage(m)
	require.NoError(t, err)
	sys := probeSystem(1, record.FIFO, nil)
	sys.Messages = append(sys.Messages, Ballot{})
	tr := newSim(t, sys, record.StartEvent("a"), record.SendEvent("a", m)).Trace(nil)
	data := encode(t, tr)
	for i := 0; i < 30; i++ {
		again, err := record.EncodeMessage(m)
		require.NoError(t, err)
		require.Equal(t, first, again, "equal messages, equal bytes")
		require.Equal(t, data, encode(t, tr))
	}
	got, _, err := record.Decode(bytes.NewReader(data), record.NewCatalog(sys))
	require.NoError(t, err)
	assert.Equal(t, m, got.Events[1].Msg)
}
