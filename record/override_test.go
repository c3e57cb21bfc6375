package record_test

import (
	"testing"

	"github.com/demi-project/demi/record"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func optionSystem() *record.System {
	return &record.System{
		Name: "opts",
		Options: []record.OptionSpec{
			{Name: "n", Default: "3", Min: 1, Max: 100},
			{Name: "udp", Default: "false"},
			{Name: "bug-a", Default: "false", Bug: true},
		},
		Network: func(o record.Options) record.Semantics {
			if o.Bool("udp") {
				return record.Unordered
			}
			return record.FIFO
		},
	}
}

func TestWithOptionsOverridesTheHeaderAndKeepsTheInput(t *testing.T) {
	sys := optionSystem()
	in := &record.Trace{
		Header: record.Header{System: "opts", Options: []record.Option{{Name: "bug-a", Value: "true"}, {Name: "n", Value: "5"}},
			Network: "fifo", Violation: &record.Violation{Fingerprint: "X", Event: 1}},
		Events: []record.Event{record.StartEvent("a"), record.StartEvent("b")},
	}
	out, err := in.WithOptions(sys, record.Options{"bug-a": "false", "udp": "true"})
	require.NoError(t, err)
	assert.Equal(t, []record.Option{{Name: "bug-a", Value: "false"}, {Name: "n", Value: "5"}, {Name: "udp", Value: "true"}}, out.Header.Options)
	assert.Equal(t, "unordered", out.Header.Network)
	assert.Equal(t, in.Events, out.Events)
	out.Header.Violation.Event = 0
	assert.Equal(t, 1, in.Header.Violation.Event, "the input's violation is not shared")
	assert.Equal(t, []record.Option{{Name: "bug-a", Value: "true"}, {Name: "n", Value: "5"}}, in.Header.Options)
	assert.Equal(t, "fifo", in.Header.Network)
}

func TestWithOptionsRejectsUnknownAndMalformedOptions(t *testing.T) {
	sys := optionSystem()
	in := &record.Trace{Header: record.Header{System: "opts"}}
	for given, want := range map[string]record.Options{
		`system opts has no option "m"`:      {"m": "1"},
		`option n: "x" is not an integer`:    {"n": "x"},
		`option bug-a: "2" is not a boolean`: {"bug-a": "2"},
		`option udp: "yes" is not a boolean`: {"udp": "yes"},
	} {
		_, err := in.WithOptions(sys, want)
		assert.EqualError(t, err, given)
	}
	_, err := (&record.Trace{Header: record.Header{System: "other"}}).WithOptions(sys, nil)
	assert.EqualError(t, err, "the trace is of system other, not opts")
}
