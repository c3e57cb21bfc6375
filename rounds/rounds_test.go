package rounds_test

import (
	"bytes"
	"context"
	"fmt"
	"testing"

	"github.com/demi-project/demi/examples/raft"
	"github.com/demi-project/demi/examples/tokenring"
	"github.com/demi-project/demi/record"
	"github.com/demi-project/demi/rounds"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRaftTraceLaysOutInRounds(t *testing.T) {
	cat := record.NewCatalog(raft.System())
	for _, bug := range []string{"raft-45", "raft-58b"} {
		t.Run(bug, func(t *testing.T) {
			tr, sys, err := record.ReadFile("../examples/traces/"+bug+".trace", cat)
			require.NoError(t, err)
			lay, err := rounds.Build(context.Background(), sys, tr)
			require.NoError(t, err)
			require.True(t, lay.Rounded)
			require.NotEmpty(t, lay.Rounds)

			// Every delivery of a rounded message is placed exactly once:
			// in its own round's phase, or in the residue.
			rounded := 0
			for _, e := range tr.Events {
				if _, ok := e.Msg.(record.Rounded); ok && e.Kind == record.Deliver {
					rounded++
				}
			}
			placed := len(lay.Residue)
			prev := -1 << 31
			for _, r := range lay.Rounds {
				assert.Greater(t, r.Number, prev, "rounds are in increasing order")
				prev = r.Number
				for _, ph := range r.Phases {
					for _, d := range ph.Deliveries {
						assert.Equal(t, r.Number, d.Round)
						assert.Equal(t, ph.Name, d.Phase)
						assert.False(t, d.Late)
						assert.Contains(t, ph.HO()[d.To], d.From, "the receiver heard the sender")
						placed++
					}
				}
			}
			for _, d := range lay.Residue {
				assert.True(t, d.Late)
				assert.Greater(t, d.ReceiverRound, d.Round)
			}
			assert.Equal(t, rounded, placed)

			var out bytes.Buffer
			require.NoError(t, lay.Write(&out))
			assert.Contains(t, out.String(), "round ")
			assert.Contains(t, out.String(), "HO: ")
			assert.Contains(t, out.String(), tr.Header.Violation.Fingerprint)
		})
	}
}

func TestUnroundedSystemSaysSo(t *testing.T) {
	sys := tokenring.System()
	tr, _, err := record.Search(context.Background(), sys, record.Options{"restore-token": "true"},
		record.SearchConfig{FuzzConfig: record.FuzzConfig{Seed: 1, MaxSteps: 300, MaxExternals: 30}, Runs: 20})
	require.NoError(t, err)
	require.NotNil(t, tr)
	lay, err := rounds.Build(context.Background(), sys, tr)
	require.NoError(t, err)
	assert.False(t, lay.Rounded)
	assert.Empty(t, lay.Rounds)
	assert.Len(t, lay.Prelude, len(tr.Events))
	var out bytes.Buffer
	require.NoError(t, lay.Write(&out))
	assert.Contains(t, out.String(), "no message in this trace carries a round")
}

func TestBuildRefusesATraceThatDoesNotReplay(t *testing.T) {
	tr, sys, err := record.ReadFile("../examples/traces/raft-45.min.trace", record.NewCatalog(raft.System()))
	require.NoError(t, err)
	k := -1
	for i, e := range tr.Events {
		if e.Kind == record.Deliver && e.Timer == "" && e.From != record.External {
			k = i
			break
		}
	}
	require.GreaterOrEqual(t, k, 0)
	// The same message ID, pretending to come from another sender: the
	// round view used to lay it out as if it did.
	bad := *tr
	bad.Events = append([]record.Event(nil), tr.Events...)
	bad.Events[k].From = bad.Events[k].To
	_, err = rounds.Build(context.Background(), sys, &bad)
	require.Error(t, err)
	assert.Regexp(t, `^trace does not replay: diverged at event \d+: .* \(differs in from raft-\d ≠ raft-\d\)$`, err.Error())
}

// TestTotals checks the totals of raft-58b's reference trace (shown in
// docs/rounds.md) against its layout, and that they add up to its
// deliveries.
func TestTotals(t *testing.T) {
	tr, sys, err := record.ReadFile("../examples/traces/raft-58b.reference.trace", record.NewCatalog(raft.System()))
	require.NoError(t, err)
	lay, err := rounds.Build(context.Background(), sys, tr)
	require.NoError(t, err)
	tot := lay.Totals()
	assert.Equal(t, rounds.Totals{Rounds: 1, QuorumRounds: 1, Phases: 3, QuorumPhases: 0, InRoundForm: 3, Residue: 0,
		NoRound: 6, Members: 3}, tot)
	assert.Equal(t, tr.Header.Deliveries, tot.InRoundForm+tot.Residue+tot.NoRound, "every delivery is counted once")
	for _, bug := range raft.BugNames() {
		tr, sys, err := record.ReadFile("../examples/traces/"+bug+".min.trace", record.NewCatalog(raft.System()))
		require.NoError(t, err)
		lay, err := rounds.Build(context.Background(), sys, tr)
		require.NoError(t, err)
		tot := lay.Totals()
		assert.Equal(t, tr.Header.Deliveries, tot.InRoundForm+tot.Residue+tot.NoRound, bug)
		assert.LessOrEqual(t, tot.QuorumRounds, tot.Rounds, bug)
		assert.LessOrEqual(t, tot.QuorumPhases, tot.Phases, bug)
	}
}

// TestPhaseIsolated checks the uniform-round view of raft-58b's reference
// trace: raft-2 takes part in the election and the vote but hears nothing
// of the append phase, while raft-3 was not running before it.
func TestPhaseIsolated(t *testing.T) {
	tr, sys, err := record.ReadFile("../examples/traces/raft-58b.reference.trace", record.NewCatalog(raft.System()))
	require.NoError(t, err)
	lay, err := rounds.Build(context.Background(), sys, tr)
	require.NoError(t, err)
	require.Len(t, lay.Rounds, 1)
	var got []string
	for _, ph := range lay.Rounds[0].Phases {
		got = append(got, fmt.Sprintf("%s%v", ph.Name, ph.Isolated))
	}
	assert.Equal(t, []string{"election[]", "vote[]", "append[raft-2]"}, got)
}
