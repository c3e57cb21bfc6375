package record_test

import (
	"testing"

	"github.com/demi-project/demi/record"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// externalsOf returns the external events of events (everything but
// deliveries).
func externalsOf(events []record.Event) []record.Event {
	var out []record.Event
	for _, e := range events {
		if e.Kind != record.Deliver {
			out = append(out, e)
		}
	}
	return out
}

// TestFuzzScriptInjectsTheScriptInOrder: a run with a script injects its
// external events, in order and nothing else, skips the deliveries it
// holds, delivers at random in between, and is the same for the same
// seed; the system's setup and generators are not used.
func TestFuzzScriptInjectsTheScriptInOrder(t *testing.T) {
	sys := gossipSystem(record.FIFO)
	script := []record.Event{
		record.StartEvent("a"), record.StartEvent("b"),
		record.SendEvent("a", Ping{N: 2}),
		{Kind: record.Deliver, From: record.External, To: "a"}, // skipped
		record.StartEvent("c"),
		record.SendEvent("c", Ping{N: 4}),
	}
	cfg := record.FuzzConfig{Seed: 7, MaxSteps: 60, ExternalProb: 0.3, Script: script}
	tr := fuzz(t, sys, cfg)
	require.Nil(t, tr.Header.Violation)
	got := externalsOf(tr.Events)
	want := append(append([]record.Event{}, script[:3]...), script[4:]...)
	require.Len(t, got, len(want), "the script's 5 external events, no generated one")
	for i := range want {
		assert.Equal(t, want[i].Kind, got[i].Kind, "event %d", i)
		assert.Equal(t, want[i].Actor, got[i].Actor, "event %d", i)
		assert.Equal(t, want[i].To, got[i].To, "event %d", i)
		assert.Equal(t, want[i].Msg, got[i].Msg, "event %d", i)
	}
	assert.Equal(t, record.Start, tr.Events[0].Kind, "the first script event comes before any delivery")
	assert.Greater(t, tr.Header.Deliveries, 10, "deliveries between and after the script's events")
	assert.LessOrEqual(t, tr.Header.Deliveries, 60)
	assert.Equal(t, encode(t, tr), encode(t, fuzz(t, sys, cfg)), "same seed, same trace")
	cfg.Seed++
	assert.NotEqual(t, encode(t, tr), encode(t, fuzz(t, sys, cfg)), "another seed, another schedule")
}
