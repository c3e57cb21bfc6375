package dpor_test

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/demi-project/demi/dpor"
	"github.com/demi-project/demi/examples"
	"github.com/demi-project/demi/fingerprint"
	"github.com/demi-project/demi/record"
)

// checkSetting is how a candidate is checked.
type checkSetting struct {
	mode      dpor.Mode
	schedules int
	broad     bool
}

// candidates returns n candidate plans derived from base the way the
// minimizer derives them (chunks and single steps removed, wildcards, a
// truncated suffix, two steps swapped), in runs that share prefixes, with
// the setting each is checked with. A candidate that reproduces sometimes
// becomes the base of the next ones, as a minimization's best does.
func candidates(rng *rand.Rand, base dpor.Plan, n int) ([]dpor.Plan, []checkSetting) {
	settings := []checkSetting{{dpor.STS, 1, false}, {dpor.TFB, 4, false}, {dpor.TFB, 3, true}, {dpor.TFB, 2, false}}
	var plans []dpor.Plan
	var sets []checkSetting
	set := settings[0]
	for i := range n {
		if i%5 == 0 {
			set = settings[rng.IntN(len(settings))]
		}
		p := append(dpor.Plan(nil), base...)
		a := rng.IntN(len(p))
		switch rng.IntN(6) {
		case 0, 1: // a chunk
			b := min(len(p), a+1+rng.IntN(max(1, len(p)/4)))
			p = append(p[:a], p[b:]...)
		case 2: // single steps
			for range 1 + rng.IntN(3) {
				k := rng.IntN(len(p))
				p = append(p[:k], p[k+1:]...)
			}
		case 3: // wildcards from a on
			for k := a; k < len(p); k++ {
				p[k].Wildcard = p[k].Event.Kind == record.Deliver
			}
		case 4: // a prefix
			p = p[:max(1, a)]
		case 5: // two neighbours swapped
			if a+1 < len(p) {
				p[a], p[a+1] = p[a+1], p[a]
			}
		}
		plans = append(plans, p)
		sets = append(sets, set)
	}
	return plans, sets
}

// TestForkedChecksEqualFullRuns checks candidates of shipped traces of
// four systems (raft, paxos, spark, etcd raft) twice, on a checker that forks its
// runs from snapshots of earlier checks and on one that runs every
// schedule from the start: each outcome (the schedules run, the trace
// found, byte for byte, or none) is the same, and the forking checker did
// start schedules from snapshots.
func TestForkedChecksEqualFullRuns(t *testing.T) {
	for _, tc := range []struct {
		name   string
		n      int
		stride int  // the fewest steps between two snapshots (0: the default)
		forks  bool // whether the system's runs fork
	}{
		{"raft-45", 24, 0, true},
		{"paxos-accept-below-promise", 120, 3, true},
		{"spark-2294", 60, 0, true},
		// etcd raft's members copy themselves onto a RawNode made by raft's
		// own API (etcdraft.Member.DeepCopy).
		{"etcdraft-send-before-persist", 30, 0, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr, sys, err := record.ReadFile(filepath.Join("..", "examples", "traces", tc.name+".trace"), examples.Catalog())
			require.NoError(t, err)
			cfg := dpor.Config{System: sys, Options: tr.Header.OptionMap(), Seed: tr.Header.Seed,
				Target: tr.Header.Violation.Fingerprint}
			forked, err := dpor.New(cfg)
			require.NoError(t, err)
			forked.SetMinStride(tc.stride)
			cfg.FullRuns = true
			full, err := dpor.New(cfg)
			require.NoError(t, err)

			fp := fingerprint.New(nil)
			base := dpor.FromEvents(fp, tr.Events)
			rng := rand.New(rand.NewPCG(1, uint64(len(base))))
			found := 0
			for round := range 3 {
				plans, sets := candidates(rng, base, tc.n/3)
				for i, plan := range plans {
					what := fmt.Sprintf("round %d candidate %d (%d steps, %+v)", round, i, len(plan), sets[i])
					var got [2]dpor.Result
					for k, c := range []*dpor.Checker{forked, full} {
						c.SetMode(sets[i].mode)
						c.SetMaxSchedules(sets[i].schedules)
						c.SetBroad(sets[i].broad)
						got[k], err = c.Check(context.Background(), plan)
						require.NoError(t, err, what)
					}
					require.Equal(t, got[1].Schedules, got[0].Schedules, what)
					require.Equal(t, got[1].Trace == nil, got[0].Trace == nil, what)
					if got[0].Trace != nil {
						found++
						require.Equal(t, encodeTrace(t, got[1].Trace), encodeTrace(t, got[0].Trace), what)
						if rng.IntN(2) == 0 {
							base = plan // a new best: later candidates derive from it
						}
					}
				}
			}
			schedules, skipped := forked.ForkStats()
			t.Logf("%d found; %d schedules forked, %d events not re-executed, %d snapshots kept", found, schedules, skipped, forked.Snapshots())
			require.Positive(t, found, "some candidates reproduce")
			if !tc.forks {
				require.Zero(t, forked.Snapshots(), "no snapshots of an unforkable system")
				return
			}
			require.Positive(t, schedules, "schedules started from snapshots")
			require.LessOrEqual(t, forked.Snapshots(), 32)
			full1, _ := full.ForkStats()
			require.Zero(t, full1, "FullRuns never forks")
		})
	}
}

func encodeTrace(t *testing.T, tr *record.Trace) []byte {
	t.Helper()
	var buf bytes.Buffer
	require.NoError(t, tr.Encode(&buf))
	return buf.Bytes()
}

// boundRacer is a racer that keeps a method value bound to itself: a copy
// of it would still change the original, so its runs cannot be forked.
type boundRacer struct {
	racer
	note func(int)
}

func (r *boundRacer) Receive(_ *record.Context, _ record.ActorID, msg record.Message) {
	if v, ok := msg.(Val); ok {
		r.note(v.V)
	}
}

func (r *boundRacer) keep(v int) {
	if r.first == 0 {
		r.first = v
	}
}

// TestUnforkableActorsRunInFull: when an actor cannot be copied
// (record.Sim.ForkError), the check runs again in full and gives the full
// run's outcome, and the checker stops forking.
func TestUnforkableActorsRunInFull(t *testing.T) {
	sys := raceSystem()
	sys.Name = "bound-race"
	sys.New = func(id record.ActorID, _ record.Options) record.Actor {
		r := &boundRacer{racer: racer{id: id}}
		r.note = r.keep
		return r
	}
	sys.Invariant = func(v record.View) *record.Violation {
		if c, ok := v.Actor("c").(*boundRacer); ok && c.first == 2 {
			return &record.Violation{Fingerprint: "first-is-2"}
		}
		return nil
	}
	fp := fingerprint.New(nil)
	plan := dpor.FromEvents(fp, append(startAll(),
		record.Event{Kind: record.Deliver, ID: 1, From: "a", To: "c", Msg: Val{V: 1}, Cause: 1},
		record.Event{Kind: record.Deliver, ID: 2, From: "b", To: "c", Msg: Val{V: 2}, Cause: 2}))
	cfg := dpor.Config{System: sys, Seed: 1, Target: "first-is-2", Mode: dpor.TFB, MaxSchedules: 4}
	forked, err := dpor.New(cfg)
	require.NoError(t, err)
	forked.SetMinStride(1)
	cfg.FullRuns = true
	full, err := dpor.New(cfg)
	require.NoError(t, err)
	for range 3 {
		var got [2]dpor.Result
		for k, c := range []*dpor.Checker{forked, full} {
			got[k], err = c.Check(context.Background(), plan)
			require.NoError(t, err)
		}
		require.NotNil(t, got[1].Trace, "the backtrack reproduces")
		require.Equal(t, got[1].Schedules, got[0].Schedules)
		require.NotNil(t, got[0].Trace)
		require.Equal(t, encodeTrace(t, got[1].Trace), encodeTrace(t, got[0].Trace))
		require.Zero(t, forked.Snapshots(), "the checker stopped forking")
	}
}

// TestSameStepKnowsEveryEventField: sameStep (fork.go) compares every
// field of record.Event; a new field must be added there (and to the
// minimizer's candidate key, minimize/cache.go), or a forked check could
// start from a snapshot of a plan that differs in it.
func TestSameStepKnowsEveryEventField(t *testing.T) {
	var fields []string
	for f := range reflect.TypeFor[record.Event]().Fields() {
		fields = append(fields, f.Name)
	}
	require.Equal(t, []string{"Kind", "ID", "From", "To", "Msg", "Timer", "Cause", "Actor", "A", "B", "Cond", "Limit", "At"}, fields)
}
