package fingerprint_test

import (
	"testing"

	"github.com/demi-project/demi/fingerprint"
	"github.com/demi-project/demi/record"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type vote struct {
	Term    int
	Granted bool
	Seq     int `demi:"-"` // masked: a counter that differs between runs
}

type batch struct {
	Entries []string
	Meta    map[string]int
	Next    *vote
	Any     any
}

type other struct {
	Term    int
	Granted bool
}

func TestFingerprint(t *testing.T) {
	for _, tc := range []struct {
		name     string
		a, b     record.Message
		sameFull bool
		sameType bool
	}{
		{"equal values", vote{Term: 1, Granted: true}, vote{Term: 1, Granted: true}, true, true},
		{"masked field ignored", vote{Term: 1, Seq: 5}, vote{Term: 1, Seq: 9}, true, true},
		{"field differs", vote{Term: 1}, vote{Term: 2}, false, true},
		{"bool differs", vote{Term: 1, Granted: true}, vote{Term: 1}, false, true},
		{"same fields, other type", vote{Term: 1}, other{Term: 1}, false, false},
		{"pointer and value differ", &vote{Term: 1}, vote{Term: 1}, false, false},
		{"pointers to equal values", &vote{Term: 1}, &vote{Term: 1}, true, true},
		{"slices", batch{Entries: []string{"a", "b"}}, batch{Entries: []string{"a", "b"}}, true, true},
		{"slice order matters", batch{Entries: []string{"a", "b"}}, batch{Entries: []string{"b", "a"}}, false, true},
		{"nil and empty slice differ", batch{Entries: nil}, batch{Entries: []string{}}, false, true},
		{"maps by content", batch{Meta: map[string]int{"x": 1, "y": 2}}, batch{Meta: map[string]int{"y": 2, "x": 1}}, true, true},
		{"maps differ", batch{Meta: map[string]int{"x": 1}}, batch{Meta: map[string]int{"x": 2}}, false, true},
		{"nested pointer", batch{Next: &vote{Term: 3}}, batch{Next: &vote{Term: 3, Seq: 1}}, true, true},
		{"interface field", batch{Any: 1}, batch{Any: int64(1)}, false, true},
		{"string boundaries", batch{Entries: []string{"ab", "c"}}, batch{Entries: []string{"a", "bc"}}, false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := fingerprint.New(nil)
			fa, fb := f.Of(tc.a), f.Of(tc.b)
			assert.Equal(t, tc.sameFull, fa.Full == fb.Full, "full fingerprints")
			assert.Equal(t, tc.sameType, fa.Type == fb.Type, "type fingerprints")
			assert.Equal(t, fa.Type, f.TypeOf(tc.a))
			// Deterministic across fingerprinters (no hidden state).
			assert.Equal(t, fa, fingerprint.New(nil).Of(tc.a))
		})
	}
}

func TestUserFunc(t *testing.T) {
	user := func(m record.Message) (string, bool) {
		if v, ok := m.(vote); ok {
			return "vote", v.Term >= 0 // every vote is the same message
		}
		return "", false
	}
	f := fingerprint.New(user)
	require.Equal(t, f.Of(vote{Term: 1}), f.Of(vote{Term: 7, Granted: true}))
	require.NotEqual(t, f.Of(other{Term: 1}), f.Of(other{Term: 2}), "other types fall back to the default")
	require.NotEqual(t, f.Of(vote{Term: 1}).Full, fingerprint.New(nil).Of(vote{Term: 1}).Full)
}

func TestCyclicValueTerminates(t *testing.T) {
	type node struct{ Next *node }
	n := &node{}
	n.Next = n
	f := fingerprint.New(nil)
	require.Equal(t, f.Of(n), f.Of(n))
}

func BenchmarkOf(b *testing.B) {
	f := fingerprint.New(nil)
	m := batch{Entries: []string{"a", "bb", "ccc"}, Next: &vote{Term: 3}}
	for b.Loop() {
		f.Of(m)
	}
}
