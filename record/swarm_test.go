package record_test

import (
	"bytes"
	"context"
	"math"
	"strconv"
	"testing"

	"github.com/demi-project/demi/examples/raft"
	"github.com/demi-project/demi/record"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// swarmConfig is a short campaign in swarm mode.
func swarmConfig(runs int) record.SearchConfig {
	return record.SearchConfig{
		FuzzConfig: record.FuzzConfig{Seed: 1, MaxSteps: 3000, CheckEvery: 1},
		Runs:       runs, Mode: record.Swarm,
	}
}

// TestSwarmSameSeedSameTrace: a swarm run is a function of its seed, and
// its header records the mode and what it drew.
func TestSwarmSameSeedSameTrace(t *testing.T) {
	sys, opts := raft.System(), record.Options{raft.Bug42: "true"}
	a, runs, err := record.Search(context.Background(), sys, opts, swarmConfig(500))
	require.NoError(t, err)
	require.NotNil(t, a, "raft-42 in %d swarm runs", runs)
	require.NotNil(t, a.Header.Fuzz)
	assert.Equal(t, "swarm", a.Header.Fuzz.Mode)
	names := map[string]string{}
	for _, p := range a.Header.Fuzz.Params {
		names[p.Name] = p.Value
	}
	for _, n := range []string{raft.OptClientWeight, raft.OptRestartWeight, raft.OptKillWeight, raft.OptPartitionWeight, "timer-prob", "externals", "external-prob"} {
		assert.Contains(t, names, n)
	}
	// The drawn options are the run's options.
	for _, n := range []string{raft.OptClientWeight, raft.OptRestartWeight} {
		assert.Equal(t, names[n], a.Header.OptionMap()[n])
	}

	cfg := swarmConfig(1)
	cfg.Seed = a.Header.Seed
	b, _, err := record.Search(context.Background(), sys, opts, cfg)
	require.NoError(t, err)
	require.NotNil(t, b)
	assert.Equal(t, encode(t, a), encode(t, b))

	// Decoded, the header keeps the mode and the draws.
	back, _, err := record.Decode(bytes.NewReader(encode(t, a)), record.NewCatalog(sys))
	require.NoError(t, err)
	assert.Equal(t, a.Header.Fuzz, back.Header.Fuzz)
}

// TestSwarmIsAWalkWithTheDrawnMix: the walk with the options and the
// configuration a swarm run drew makes the same run.
func TestSwarmIsAWalkWithTheDrawnMix(t *testing.T) {
	sys, opts := raft.System(), record.Options{raft.Bug42: "true"}
	s, _, err := record.Search(context.Background(), sys, opts, swarmConfig(500))
	require.NoError(t, err)
	require.NotNil(t, s)
	cfg := record.SearchConfig{FuzzConfig: record.FuzzConfig{Seed: s.Header.Seed, MaxSteps: 3000, CheckEvery: 1}, Runs: 1}
	for _, p := range s.Header.Fuzz.Params {
		f, err := strconv.ParseFloat(p.Value, 64)
		require.True(t, err == nil || p.Name == "sustain", "%s=%s", p.Name, p.Value)
		switch p.Name {
		case "timer-prob":
			cfg.TimerProb = f
		case "externals":
			cfg.MaxExternals = int(f)
		case "external-prob":
			cfg.ExternalProb = f
		case "intensity", "sustain":
			// What the pace above was drawn through, and whether its
			// budget was raised to the run's length (externals says
			// so): nothing to set.
		default:
			assert.Equal(t, p.Value, s.Header.OptionMap()[p.Name], "a drawn option is among the trace's options")
		}
	}
	w, _, err := record.Search(context.Background(), sys, s.Header.OptionMap(), cfg)
	require.NoError(t, err)
	require.NotNil(t, w)
	assert.Nil(t, w.Header.Fuzz, "walk traces have no fuzz field")
	assert.Equal(t, s.Events, w.Events)
}

// TestSwarmDrawsDiffer: different seeds draw different mixes, and a fixed
// option or probability is not drawn.
func TestSwarmDrawsDiffer(t *testing.T) {
	sys := raft.System()
	camp, err := record.Swarm.Campaign(sys, record.Options{raft.OptRestartWeight: "7"}, record.SearchConfig{FuzzConfig: record.FuzzConfig{MaxSteps: 200, TimerProb: 0.3}})
	require.NoError(t, err)
	seen := map[string]bool{}
	var prev *record.Sim
	for seed := uint64(1); seed <= 20; seed++ {
		r, err := camp.Run(context.Background(), seed, prev)
		require.NoError(t, err)
		assert.Equal(t, "7", r.Sim.Options()[raft.OptRestartWeight])
		assert.Equal(t, 0.3, r.Config.TimerProb)
		key := ""
		for _, p := range r.Params {
			assert.NotEqual(t, raft.OptRestartWeight, p.Name)
			assert.NotEqual(t, "timer-prob", p.Name)
			key += p.Name + "=" + p.Value + " "
		}
		seen[key] = true
		prev = r.Sim
	}
	assert.Greater(t, len(seen), 15, "20 seeds draw (almost) 20 mixes")
}

// TestSwarmDefaultSwitchesGenerators: a system without a swarm spec gets
// its generators switched on and off.
func TestSwarmDefaultSwitchesGenerators(t *testing.T) {
	sys := gossipSystem(record.FIFO)
	camp, err := record.Swarm.Campaign(sys, nil, record.SearchConfig{FuzzConfig: record.FuzzConfig{MaxSteps: 100}})
	require.NoError(t, err)
	off := 0
	for seed := uint64(1); seed <= 10; seed++ {
		r, err := camp.Run(context.Background(), seed, nil)
		require.NoError(t, err)
		on := 0
		for _, p := range r.Params {
			if p.Name == "weight.send" || p.Name == "weight.restart" || p.Name == "weight.partition" || p.Name == "weight.kill-start" || p.Name == "weight.quiesce" {
				if p.Value == "0" {
					off++
				} else {
					on++
				}
			}
		}
		assert.Positive(t, on, "seed %d: at least one generator is on", seed)
	}
	assert.Positive(t, off)
}

// TestSwarmTimerScalesWithMembers: Raft declares its timer range for four
// members; with nine, every run draws from the range scaled by 3/8 (a
// round of messages takes 8/3 the deliveries), with four from the range
// itself.
func TestSwarmTimerScalesWithMembers(t *testing.T) {
	sys := raft.System()
	draws := func(members string) []float64 {
		camp, err := record.Swarm.Campaign(sys, record.Options{raft.OptMembers: members}, record.SearchConfig{FuzzConfig: record.FuzzConfig{MaxSteps: 20}})
		require.NoError(t, err)
		var out []float64
		for seed := uint64(1); seed <= 40; seed++ {
			r, err := camp.Run(context.Background(), seed, nil)
			require.NoError(t, err)
			out = append(out, r.Config.TimerProb)
		}
		return out
	}
	four, nine := draws("4"), draws("9")
	for i := range four {
		assert.InDelta(t, four[i]*3/8, nine[i], four[i]*0.01, "seed %d", i+1)
		assert.GreaterOrEqual(t, four[i], 0.02)
		assert.LessOrEqual(t, four[i], 0.3)
	}
	sys.Swarm = &record.SwarmSpec{TimerProb: [2]float64{0.01, 0.1}, TimerMembers: -1}
	_, err := record.Swarm.Campaign(sys, nil, record.SearchConfig{})
	assert.ErrorContains(t, err, "timer members")
}

func TestSwarmSpecChecked(t *testing.T) {
	sys := raft.System()
	sys.Swarm = &record.SwarmSpec{TimerProb: [2]float64{0.1, 0.01}}
	_, err := record.Swarm.Campaign(sys, nil, record.SearchConfig{})
	assert.ErrorContains(t, err, "timer probability range")
	sys.Swarm = &record.SwarmSpec{TimerProb: [2]float64{0.01, 0.1}, Options: []record.SwarmOption{{Name: raft.Bug45, Max: 1}}}
	_, err = record.Swarm.Campaign(sys, nil, record.SearchConfig{})
	assert.ErrorContains(t, err, "bug switch")
	sys.Swarm = &record.SwarmSpec{TimerProb: [2]float64{0.01, 0.1}, Options: []record.SwarmOption{{Name: raft.OptClientWeight, Max: 5000}}}
	_, err = record.Swarm.Campaign(sys, nil, record.SearchConfig{})
	assert.ErrorContains(t, err, "exceeds the option's bounds")
}

func TestLookupMode(t *testing.T) {
	for _, m := range record.Modes() {
		got, err := record.LookupMode(m.Name())
		require.NoError(t, err)
		assert.Equal(t, m, got)
	}
	_, err := record.LookupMode("nope")
	assert.ErrorContains(t, err, `unknown fuzz mode "nope" (known: `)
}

// TestSwarmIntensityCorrelatesThePace: with an intensity, a run's timer
// probability goes down as its external events and their rate go up, each
// still over its whole range; without one, the three are independent; the
// draws before the pace (the options) are the same either way, and the
// intensity is recorded.
func TestSwarmIntensityCorrelatesThePace(t *testing.T) {
	type pace struct{ timer, externals, rate float64 }
	draws := func(intensity float64) ([]pace, []string) {
		sys := raft.System()
		spec := *sys.Swarm
		spec.Intensity, spec.Sustain = intensity, 0
		sys.Swarm = &spec
		camp, err := record.Swarm.Campaign(sys, nil, record.SearchConfig{FuzzConfig: record.FuzzConfig{MaxSteps: 1}})
		require.NoError(t, err)
		var out []pace
		var opts []string
		for seed := uint64(1); seed <= 400; seed++ {
			r, err := camp.Run(context.Background(), seed, nil)
			require.NoError(t, err)
			out = append(out, pace{r.Config.TimerProb, float64(r.Config.MaxExternals), r.Config.ExternalProb})
			key, recorded := "", false
			for _, p := range r.Params {
				switch p.Name {
				case "intensity":
					recorded = true
					w, err := strconv.ParseFloat(p.Value, 64)
					require.NoError(t, err)
					assert.True(t, w >= 0 && w < 1, "intensity %v", w)
				case "timer-prob", "externals", "external-prob":
				default:
					key += p.Name + "=" + p.Value + " "
				}
			}
			assert.Equal(t, intensity > 0, recorded, "seed %d: intensity recorded", seed)
			opts = append(opts, key)
		}
		return out, opts
	}
	// Spearman's rank correlation would do; the sign of the Pearson
	// correlation of the logs is enough here.
	corr := func(ps []pace, a, b func(pace) float64) float64 {
		var sa, sb, saa, sbb, sab float64
		for _, p := range ps {
			x, y := a(p), b(p)
			sa, sb, saa, sbb, sab = sa+x, sb+y, saa+x*x, sbb+y*y, sab+x*y
		}
		n := float64(len(ps))
		return (sab/n - sa/n*sb/n) / math.Sqrt((saa/n-sa/n*sa/n)*(sbb/n-sb/n*sb/n))
	}
	timer := func(p pace) float64 { return math.Log(p.timer) }
	externals := func(p pace) float64 { return p.externals }
	rate := func(p pace) float64 { return math.Log(p.rate) }

	free, freeOpts := draws(0)
	tied, tiedOpts := draws(0.8)
	assert.Equal(t, freeOpts, tiedOpts, "the options are drawn as without an intensity")
	for _, c := range []struct {
		name string
		a, b func(pace) float64
		sign float64
	}{{"timer, externals", timer, externals, -1}, {"timer, rate", timer, rate, -1}, {"externals, rate", externals, rate, 1}} {
		assert.InDelta(t, 0, corr(free, c.a, c.b), 0.15, "%s independent", c.name)
		assert.Greater(t, c.sign*corr(tied, c.a, c.b), 0.6, "%s correlated", c.name)
	}
	// Each draw still covers its range: a fifth of the runs in its lowest
	// fifth and a fifth in its highest, within noise.
	for _, p := range tied {
		assert.True(t, p.timer >= 0.02 && p.timer <= 0.3 && p.externals >= 100 && p.externals <= 400 && p.rate >= 0.05 && p.rate <= 0.3, "%+v", p)
	}
	low, high := 0, 0
	for _, p := range tied {
		if p.externals < 160 {
			low++
		}
		if p.externals >= 340 {
			high++
		}
	}
	assert.InDelta(t, 80, low, 25)
	assert.InDelta(t, 80, high, 25)

	sys := raft.System()
	sys.Swarm = &record.SwarmSpec{TimerProb: [2]float64{0.01, 0.1}, Intensity: 0.5}
	_, err := record.Swarm.Campaign(sys, nil, record.SearchConfig{})
	assert.ErrorContains(t, err, "swarm intensity 0.5")
	sys.Swarm = &record.SwarmSpec{TimerProb: [2]float64{0.01, 0.1}, Externals: [2]int{1, 2}, ExternalProb: [2]float64{0.1, 0.2}, Intensity: 1.5}
	_, err = record.Swarm.Campaign(sys, nil, record.SearchConfig{})
	assert.ErrorContains(t, err, "swarm intensity 1.5")
}

// TestSwarmSustainLastsTheWholeRun: with Sustain, about that share of the
// runs inject external events at their drawn rate to the end of the run,
// mostly the runs of a high intensity, the others stop when their drawn
// number is spent; every other draw is as without it.
func TestSwarmSustainLastsTheWholeRun(t *testing.T) {
	type run struct {
		params    map[string]string
		sustained bool
		lastExt   float64 // where the last external event came, as a share of the events
	}
	draws := func(sustain float64) []run {
		sys := raft.System()
		spec := *sys.Swarm
		spec.Sustain = sustain
		sys.Swarm = &spec
		camp, err := record.Swarm.Campaign(sys, nil, record.SearchConfig{FuzzConfig: record.FuzzConfig{MaxSteps: 3000}})
		require.NoError(t, err)
		var out []run
		for seed := uint64(1); seed <= 60; seed++ {
			r, err := camp.Run(context.Background(), seed, nil)
			require.NoError(t, err)
			x := run{params: map[string]string{}}
			for _, p := range r.Params {
				x.params[p.Name] = p.Value
			}
			x.sustained = x.params["sustain"] == "true"
			assert.Equal(t, sustain > 0, x.params["sustain"] != "", "seed %d: sustain recorded", seed)
			assert.Equal(t, strconv.Itoa(r.Config.MaxExternals), x.params["externals"])
			assert.Equal(t, strconv.FormatFloat(r.Config.ExternalProb, 'g', -1, 64), x.params["external-prob"])
			evs := r.Sim.Events()
			for i, e := range evs {
				if e.Kind != record.Deliver {
					x.lastExt = float64(i+1) / float64(len(evs))
				}
			}
			out = append(out, x)
		}
		return out
	}
	without, with := draws(0), draws(0.5)
	sustained := 0
	for i, w := range with {
		// Every draw but the budget is the same.
		for k, v := range without[i].params {
			if k != "externals" || !w.sustained {
				assert.Equal(t, v, w.params[k], "seed %d: %s", i+1, k)
			}
		}
		none := true // every kind of external event left out
		for _, o := range []string{raft.OptClientWeight, raft.OptRestartWeight, raft.OptKillWeight, raft.OptPartitionWeight} {
			none = none && w.params[o] == "0"
		}
		if w.sustained {
			sustained++
			assert.Equal(t, "3000", w.params["externals"])
		}
		if w.sustained && !none {
			assert.Greater(t, w.lastExt, 0.97, "seed %d: a sustained run's workload lasts to its end", i+1)
		} else if !(without[i].lastExt <= 0.97) {
			// An unsustained run's workload lasts as long as its
			// budget at its rate: to the end only if that is long.
			n, err := strconv.Atoi(w.params["externals"])
			require.NoError(t, err)
			rate, err := strconv.ParseFloat(w.params["external-prob"], 64)
			require.NoError(t, err)
			assert.Greater(t, float64(n)/rate, 0.8*3000, "seed %d: %v", i+1, w.params)
		}
	}
	assert.InDelta(t, 30, sustained, 10, "about half the runs are sustained")
	// Through the intensity: the sustained runs are mostly the intense.
	var in [2]float64
	var nIn [2]int
	for _, w := range with {
		x, err := strconv.ParseFloat(w.params["intensity"], 64)
		require.NoError(t, err)
		k := 0
		if w.sustained {
			k = 1
		}
		in[k] += x
		nIn[k]++
	}
	assert.Greater(t, in[1]/float64(nIn[1])-in[0]/float64(nIn[0]), 0.25, "mean intensity of the sustained runs against the others")
	early := 0
	for _, w := range without {
		if w.lastExt < 0.7 {
			early++
		}
	}
	assert.Greater(t, early, 20, "without it, the workload of many runs ends early")

	sys := raft.System()
	sys.Swarm = &record.SwarmSpec{TimerProb: [2]float64{0.01, 0.1}, Sustain: 1.5}
	_, err := record.Swarm.Campaign(sys, nil, record.SearchConfig{})
	assert.ErrorContains(t, err, "swarm sustain 1.5")
}
