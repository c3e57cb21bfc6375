package paxos_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/demi-project/demi/examples/paxos"
	"github.com/demi-project/demi/record"
	"github.com/demi-project/demi/replay"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestDefinition(t *testing.T) {
	sys := paxos.System()
	assert.Equal(t, []string{"forget-accepted", "accept-below-promise"}, sys.Bugs())
	o, err := sys.Resolve(nil)
	require.NoError(t, err)
	assert.Equal(t, []record.ActorID{"p1", "p2", "p3", "p4", "p5"}, sys.Members(o))
	setup := sys.Setup(o)
	require.Len(t, setup, 7)
	assert.Equal(t, record.SendEvent("p1", paxos.Propose{Value: "a"}), setup[5])
	assert.Equal(t, record.SendEvent("p5", paxos.Propose{Value: "b"}), setup[6])
}

// deliver delivers the pending message from -> to of message type T
// (the first in send order).
func deliver[T any](t *testing.T, sim *record.Sim, from, to record.ActorID) {
	t.Helper()
	for _, p := range sim.Enabled(nil) {
		if _, ok := p.Msg.(T); ok && p.From == from && p.To == to {
			require.NoError(t, sim.Deliver(p.ID))
			return
		}
	}
	var zero T
	t.Fatalf("no %T from %s to %s is deliverable", zero, from, to)
}

// ballot runs proposer's ballot with acceptors a and b: Propose, Prepare,
// Promise, Accept and Accepted, each in turn.
func ballot(t *testing.T, sim *record.Sim, proposer, a, b record.ActorID) {
	t.Helper()
	deliver[paxos.Propose](t, sim, record.External, proposer)
	for _, x := range []record.ActorID{a, b} {
		deliver[paxos.Prepare](t, sim, proposer, x)
		deliver[paxos.Promise](t, sim, x, proposer)
	}
	for _, x := range []record.ActorID{a, b} {
		deliver[paxos.Accept](t, sim, proposer, x)
		deliver[paxos.Accepted](t, sim, x, proposer)
	}
}

// twoBallots starts every member, asks p1 and p5 to propose, and runs p5's
// ballot with p1 and p3, then p1's (above the one it promised) with p2 and
// p3: the quorums meet at p3, which reports p5's value to p1.
func twoBallots(t *testing.T, opts record.Options) *record.Sim {
	t.Helper()
	sys := paxos.System()
	sim, err := record.NewSim(sys, opts, 1)
	require.NoError(t, err)
	o, err := sys.Resolve(opts)
	require.NoError(t, err)
	for _, e := range sys.Setup(o) {
		require.NoError(t, sim.Apply(e))
	}
	ballot(t, sim, "p5", "p1", "p3")
	require.Nil(t, sim.Check())
	ballot(t, sim, "p1", "p2", "p3")
	return sim
}

func TestASecondBallotKeepsTheChosenValue(t *testing.T) {
	sim := twoBallots(t, nil)
	assert.Nil(t, sim.Check())
	for _, id := range []record.ActorID{"p1", "p5"} {
		assert.Equal(t, "b", sim.View().Actor(id).(*paxos.Node).Decided(), id)
	}
}

func TestForgetAcceptedChoosesTwoValues(t *testing.T) {
	sim := twoBallots(t, record.Options{"forget-accepted": "true"})
	v := sim.Check()
	require.NotNil(t, v)
	assert.Equal(t, "Agreement(p1,p5)", v.Fingerprint)
	assert.Equal(t, `p1 decided "a" and p5 decided "b"`, v.Detail)
	assert.Equal(t, 18, sim.NumDeliveries())
}

func TestAcceptBelowPromise(t *testing.T) {
	// p1 gets promises from p2 and p3; p5 then gets p3 and p4 to promise
	// and accept b; p1's Accept, below p3's promise, is accepted anyway.
	sys := paxos.System()
	for _, bug := range []bool{false, true} {
		t.Run(fmt.Sprint(bug), func(t *testing.T) {
			opts := record.Options{"accept-below-promise": fmt.Sprint(bug)}
			sim, err := record.NewSim(sys, opts, 1)
			require.NoError(t, err)
			o, err := sys.Resolve(opts)
			require.NoError(t, err)
			for _, e := range sys.Setup(o) {
				require.NoError(t, sim.Apply(e))
			}
			deliver[paxos.Propose](t, sim, record.External, "p1")
			for _, x := range []record.ActorID{"p2", "p3"} {
				deliver[paxos.Prepare](t, sim, "p1", x)
				deliver[paxos.Promise](t, sim, x, "p1")
			}
			ballot(t, sim, "p5", "p3", "p4")
			for _, x := range []record.ActorID{"p2", "p3"} {
				deliver[paxos.Accept](t, sim, "p1", x)
			}
			if !bug {
				assert.Nil(t, sim.Check())
				deliver[paxos.Accepted](t, sim, "p2", "p1") // p3 refused: no answer
				assert.Nil(t, sim.Check())
				assert.Empty(t, sim.View().Actor("p1").(*paxos.Node).Decided())
				return
			}
			for _, x := range []record.ActorID{"p2", "p3"} {
				deliver[paxos.Accepted](t, sim, x, "p1")
			}
			v := sim.Check()
			require.NotNil(t, v)
			assert.Equal(t, "Agreement(p1,p5)", v.Fingerprint)
		})
	}
}

func TestFuzzFindsOnlyTheBugs(t *testing.T) {
	sys := paxos.System()
	cfg := record.SearchConfig{FuzzConfig: record.FuzzConfig{Seed: 1}, Runs: 300}
	tr, runs, err := record.Search(context.Background(), sys, nil, cfg)
	require.NoError(t, err)
	assert.Nil(t, tr, "correct Paxos broke agreement")
	assert.Equal(t, 300, runs)
	for _, bug := range sys.Bugs() {
		tr, _, err := record.Search(context.Background(), sys, record.Options{bug: "true"}, cfg)
		require.NoError(t, err)
		require.NotNil(t, tr, bug)
		assert.Equal(t, "Agreement(p1,p5)", tr.Header.Violation.Fingerprint, bug)
	}
}

// TestShippedTraces replays the shipped traces of both bugs (see
// scripts/gen-traces.sh): the fuzzed run and its minimization.
func TestShippedTraces(t *testing.T) {
	cat := record.NewCatalog(paxos.System())
	for _, c := range []struct {
		file                  string
		deliveries, externals int
	}{
		{"paxos-forget-accepted.trace", 27, 7},
		{"paxos-forget-accepted.min.trace", 18, 5},
		{"paxos-accept-below-promise.trace", 29, 7},
		{"paxos-accept-below-promise.min.trace", 18, 6},
	} {
		t.Run(c.file, func(t *testing.T) {
			tr, sys, err := record.ReadFile("../traces/"+c.file, cat)
			require.NoError(t, err)
			assert.Equal(t, c.deliveries, tr.Header.Deliveries)
			assert.Equal(t, c.externals, tr.Header.Externals)
			r, err := replay.Run(context.Background(), sys, tr)
			require.NoError(t, err)
			assert.True(t, r.Reproduced, "%v", r.Divergence)
		})
	}
}

// TestShippedTracesRegenerate runs the documented fuzz search of every bug
// (paxos.ShippedFuzz) and expects the shipped file byte for byte.
func TestShippedTracesRegenerate(t *testing.T) {
	cases := paxos.ShippedFuzz()
	require.Len(t, cases, 2)
	for _, c := range cases {
		t.Run(c.Bug, func(t *testing.T) {
			tr, _, err := record.Search(context.Background(), paxos.System(), c.Options(), c.Config)
			require.NoError(t, err)
			require.NotNil(t, tr, "no violation in %d runs", c.Config.Runs)
			want, err := os.ReadFile(filepath.Join("..", "traces", paxos.TraceName(c.Bug)+".trace"))
			require.NoError(t, err)
			var got bytes.Buffer
			require.NoError(t, tr.Encode(&got))
			assert.True(t, bytes.Equal(want, got.Bytes()), "the shipped trace is stale: run scripts/gen-traces.sh")
		})
	}
}
