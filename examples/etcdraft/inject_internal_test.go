package etcdraft

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/demi-project/demi/record"
)

// TestEachListsWhatMakeDraws checks that eachExternal lists the kinds of
// event makeExternal draws, no more and no fewer (kind, member and message
// type), under the default options, with reads and kills on, and with
// everything but client writes off; one member is down, so that kills and
// starts both show.
func TestEachListsWhatMakeDraws(t *testing.T) {
	for _, opts := range []record.Options{
		nil,
		{OptReadWeight: "10", OptKillWeight: "1"},
		{OptRestartWeight: "0", OptPartitionWeight: "0"},
	} {
		sys := System()
		o, err := sys.Resolve(opts)
		require.NoError(t, err)
		sim, err := record.NewSim(sys, o, 1)
		require.NoError(t, err)
		for _, e := range Setup(o)[:2] {
			require.NoError(t, sim.Apply(e))
		}
		key := func(e record.Event) string {
			return e.Kind.String() + " " + string(e.Actor) + string(e.To) + " " + record.TypeName(e.Msg)
		}
		listed := map[string]bool{}
		for _, e := range eachExternal(sim.View()) {
			k := key(e)
			if e.Kind == record.Partition || e.Kind == record.Heal {
				k += string(e.A[0]) + string(e.B[0])
			}
			listed[k] = true
		}
		drawn := map[string]bool{}
		r := rand.New(rand.NewPCG(1, 2))
		for range 5000 {
			if e, ok := makeExternal(r, sim.View()); ok {
				k := key(e)
				if e.Kind == record.Partition || e.Kind == record.Heal {
					a, b := e.A[0], e.B[0]
					if a > b {
						a, b = b, a
					}
					k += string(a) + string(b)
				}
				drawn[k] = true
			}
		}
		assert.Equal(t, drawn, listed, "options %v", opts)
	}
}
