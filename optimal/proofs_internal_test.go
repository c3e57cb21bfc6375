package optimal

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSubsequence(t *testing.T) {
	for _, c := range []struct {
		a, b []string
		want bool
	}{
		{nil, nil, true},
		{nil, []string{"x"}, true},
		{[]string{"x"}, nil, false},
		{[]string{"a", "c"}, []string{"a", "b", "c"}, true},
		{[]string{"c", "a"}, []string{"a", "b", "c"}, false},
		{[]string{"a", "a"}, []string{"a", "b"}, false},
		{[]string{"a", "b", "c"}, []string{"a", "b", "c"}, true},
	} {
		assert.Equal(t, c.want, subsequence(c.a, c.b), "%q in %q", c.a, c.b)
	}
}

// TestProofsAnswerWhatTheyCover: a proof answers a search of a subsequence of its external events, in its
// setup, at its bound or below, and nothing else.
func TestProofsAnswerWhatTheyCover(t *testing.T) {
	var p Proofs
	p.add(proof{setup: "raft", externals: []string{"start a", "start b", "write"}, bound: 14, steps: 700})
	for _, c := range []struct {
		setup     string
		externals []string
		bound     int
		ok        bool
	}{
		{"raft", []string{"start a", "start b", "write"}, 14, true},
		{"raft", []string{"start a", "write"}, 12, true},
		{"raft", []string{"start a", "write"}, 15, false},                     // a cheaper route the proof does not cover
		{"raft", []string{"start b", "start a", "write"}, 10, false},          // another order
		{"raft", []string{"start a", "start b", "write", "write"}, 10, false}, // an event it did not search
		{"paxos", []string{"start a", "write"}, 12, false},                    // another system
	} {
		steps, ok := p.answer(c.setup, c.externals, c.bound)
		require.Equal(t, c.ok, ok, "%s %q up to %d", c.setup, c.externals, c.bound)
		if ok {
			assert.Equal(t, 700, steps)
		}
	}
}
