package record

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
)

// Swarm is swarm testing (Groce et al., ISSTA'12): every run is a walk
// (see Walk) with its own mix of faults and workload, drawn from its seed
// within the ranges the system declares (System.Swarm): which external
// kinds are enabled and their weights, and the timer probability. One
// campaign thus explores many corners (a run without partitions, a run of
// nothing but restarts, a run whose timers fire often) instead of the one
// the default weights pick, and a bug that needs a rare kind of event, or
// the absence of a common one, turns up in some runs. The same seed draws
// the same mix and makes the same run, byte for byte; the trace header
// records the drawn values (Header.Fuzz) and holds the drawn option values
// among its options, so `demi fuzz --mode walk` with those values and the
// seed makes the same run again.
//
// What the user fixes is not drawn: an option given to Search (an --opt
// on the command line) keeps its value, and a TimerProb, MaxExternals or
// ExternalProb other than 0 is used as is.
var Swarm Mode = swarmMode{}

// SwarmSpec declares what a swarm run draws. A system without one gets
// DefaultSwarm.
type SwarmSpec struct {
	// Options are integer options (typically the weights of the kinds of
	// external event a generator makes) drawn per run.
	Options []SwarmOption
	// TimerProb is the range the chance a delivery fires a timer is drawn
	// from, log-uniformly (both bounds inclusive, above 0, at most 1).
	TimerProb [2]float64
	// TimerMembers, when set, is the cluster size TimerProb is declared
	// for: a run of n members (System.Members) draws from TimerProb
	// scaled by (TimerMembers-1)/(n-1) (capped at 1). A round of messages
	// (a leader's to the others and their replies) takes 2(n-1)
	// deliveries, so a timer that fires with the same chance per delivery
	// fires more often per round in a larger cluster, and elections crowd
	// out everything else; the scaled range keeps the timers' pace per
	// round as the system was tuned for.
	TimerMembers int
	// Externals, when set, is the range the number of random external
	// events of a run (FuzzConfig.MaxExternals) is drawn from, uniformly;
	// zero: the configuration's.
	Externals [2]int
	// ExternalProb, when set, is the range the chance a step injects an
	// external event is drawn from, log-uniformly; zero: the
	// configuration's (by default 2·MaxExternals/MaxSteps).
	ExternalProb [2]float64
	// Intensity, when above 0 (at most 1), correlates the run's pace:
	// the timer probability, the number of external events and their
	// rate. A run draws one workload intensity besides its other draws,
	// and each of the three is drawn through it, a high intensity moving
	// the number and rate of external events up and the timer
	// probability down: a Gaussian copula whose three latent normals
	// have pairwise correlation Intensity (0: independent, as without
	// it). Each draw keeps its own distribution over its range; only
	// how they go together changes. A bug that needs much workload
	// between two timeouts (many client commands per election) needs
	// all three at once, a corner that independent draws reach in few
	// runs. Recorded as "intensity", the intensity's quantile (0 to 1).
	// It needs TimerProb, Externals and ExternalProb ranges.
	Intensity float64
	// Generators, when true, also switches the system's generators
	// (System.Externals) on and off per run: each is on with chance 1/2
	// (at least one is), its weight scaled by a factor from 1/2 to 2.
	// It has no effect on a system with a single generator.
	Generators bool
	// Sustain is the chance (0 to 1) a run's workload lasts the whole
	// run: its external events have no budget (the run's step limit) and
	// go on at the drawn rate until the run ends, where otherwise they
	// stop when the drawn number of them (Externals, or the
	// configuration's) is spent, often early in the run. With an
	// Intensity it is drawn through it, correlated as the number of
	// external events is: the runs of much workload tend to be the
	// sustained ones. Recorded as "sustain" (true or false) with the
	// budget it gave ("externals") and the rate; drawn last, so that
	// every other draw is what it is without, and a run that is not
	// sustained is the run it was without.
	Sustain float64
}

// SwarmOption is the range of one integer option of a swarm run.
type SwarmOption struct {
	// Name is the option's name (System.Options).
	Name string
	// Off is the chance the option is 0 in a run: the kind of event it
	// weighs is left out.
	Off float64
	// Min and Max bound the value drawn, uniformly, when it is not 0.
	Min, Max int
}

// DefaultSwarm is the swarm of a system that declares none: generators
// switched on and off, timers firing at 1% to 20% of the deliveries.
var DefaultSwarm = SwarmSpec{TimerProb: [2]float64{0.01, 0.2}, Generators: true}

// swarmStream is the PCG stream of swarm draws ("swarm"), apart from the
// walk's stream of the same seed.
const swarmStream = 0x737761726d

// Check reports a spec that cannot be drawn from for sys.
func (sp *SwarmSpec) Check(sys *System) error {
	lo, hi := sp.TimerProb[0], sp.TimerProb[1]
	if !(lo > 0 && lo <= hi && hi <= 1) {
		return fmt.Errorf("system %s: swarm timer probability range [%v, %v]: want 0 < low <= high <= 1", sys.Name, lo, hi)
	}
	if sp.TimerMembers < 0 {
		return fmt.Errorf("system %s: swarm timer members %d: want 0 (none) or more", sys.Name, sp.TimerMembers)
	}
	if lo, hi := sp.Externals[0], sp.Externals[1]; lo < 0 || lo > hi {
		return fmt.Errorf("system %s: swarm externals range [%d, %d]: want 0 <= low <= high", sys.Name, lo, hi)
	}
	if lo, hi := sp.ExternalProb[0], sp.ExternalProb[1]; (lo != 0 || hi != 0) && !(lo > 0 && lo <= hi && hi <= 1) {
		return fmt.Errorf("system %s: swarm external probability range [%v, %v]: want 0 < low <= high <= 1", sys.Name, lo, hi)
	}
	if !(sp.Sustain >= 0 && sp.Sustain <= 1) {
		return fmt.Errorf("system %s: swarm sustain %v: want 0 to 1", sys.Name, sp.Sustain)
	}
	if sp.Intensity != 0 && (!(sp.Intensity > 0 && sp.Intensity <= 1) || sp.Externals[1] == 0 || sp.ExternalProb[1] == 0) {
		return fmt.Errorf("system %s: swarm intensity %v: want 0 (none), or above 0 and at most 1 with an externals range and an external probability range", sys.Name, sp.Intensity)
	}
	for _, o := range sp.Options {
		found := false
		for _, spec := range sys.Options {
			if spec.Name == o.Name && !spec.Bug {
				found = true
				if spec.Bounded() && (o.Min < spec.Min || o.Max > spec.Max) {
					return fmt.Errorf("system %s: swarm range of %s [%d, %d] exceeds the option's bounds [%d, %d]", sys.Name, o.Name, o.Min, o.Max, spec.Min, spec.Max)
				}
			}
		}
		switch {
		case !found:
			return fmt.Errorf("system %s: swarm draws option %q, which the system does not declare (or is a bug switch)", sys.Name, o.Name)
		case o.Min > o.Max || !(o.Off >= 0 && o.Off <= 1):
			return fmt.Errorf("system %s: swarm range of %s: want Min <= Max and 0 <= Off <= 1", sys.Name, o.Name)
		}
	}
	return nil
}

type swarmMode struct{}

func (swarmMode) Name() string { return "swarm" }

func (swarmMode) Campaign(sys *System, opts Options, cfg SearchConfig) (Campaign, error) {
	return newSwarmCampaign(sys, opts, cfg.FuzzConfig)
}

func newSwarmCampaign(sys *System, opts Options, cfg FuzzConfig) (*swarmCampaign, error) {
	spec := DefaultSwarm
	if sys.Swarm != nil {
		spec = *sys.Swarm
	}
	if err := spec.Check(sys); err != nil {
		return nil, err
	}
	if spec.TimerMembers > 0 && sys.Members != nil {
		o, err := sys.Resolve(opts)
		if err != nil {
			return nil, err
		}
		if n := len(sys.Members(o)); n > 1 && spec.TimerMembers > 1 && n != spec.TimerMembers {
			f := float64(spec.TimerMembers-1) / float64(n-1)
			spec.TimerProb = [2]float64{min(spec.TimerProb[0]*f, 1), min(spec.TimerProb[1]*f, 1)}
		}
	}
	plan, err := planSims(sys)
	if err != nil {
		return nil, err
	}
	return &swarmCampaign{sys: sys, plan: plan, opts: opts, cfg: cfg, spec: spec}, nil
}

// swarmMix draws, for the modes that make their runs otherwise (rounds,
// coverage), each run's mix of external events the way swarm does: the
// options the system's swarm spec declares (the kinds of external event
// and their weights, unless the user fixed them) and the generators'
// weights. The modes keep their own timer probability and external-event
// budget and rate (cfg has them): only the mix is drawn. Without it a
// mode injects only the kinds of event the system's defaults switch on,
// and a bug that needs another (a crash-restart, in Raft whose default
// restart weight is 0) is out of its reach.
type swarmMix struct{ c *swarmCampaign }

func newSwarmMix(sys *System, opts Options, cfg FuzzConfig) (swarmMix, error) {
	c, err := newSwarmCampaign(sys, opts, cfg)
	return swarmMix{c}, err
}

// draw returns seed's run's options, generator weights (nil: the
// system's) and the parameters to record.
func (m swarmMix) draw(seed uint64) (Options, []float64, []Option) {
	run := m.c.draw(seed)
	return run.opts, run.weights, run.params
}

type swarmCampaign struct {
	sys  *System
	plan *simPlan
	opts Options
	cfg  FuzzConfig
	spec SwarmSpec
}

// swarmRun is the mix a swarm run drew.
type swarmRun struct {
	opts    Options // the given options and the drawn ones
	cfg     FuzzConfig
	weights []float64 // generator weights, nil: the system's
	params  []Option
}

// draw draws the mix of seed's run.
func (c *swarmCampaign) draw(seed uint64) swarmRun {
	r := rand.New(rand.NewPCG(seed, swarmStream))
	run := swarmRun{opts: Options{}, cfg: c.cfg}
	for k, v := range c.opts {
		run.opts[k] = v
	}
	for _, o := range c.spec.Options {
		// Draw even when the user fixed the option, so that fixing one
		// leaves the draws of the others as they were.
		n := 0
		if r.Float64() >= o.Off {
			n = o.Min + r.IntN(o.Max-o.Min+1)
		}
		if _, fixed := c.opts[o.Name]; fixed {
			continue
		}
		run.opts[o.Name] = strconv.Itoa(n)
		run.params = append(run.params, Option{Name: o.Name, Value: strconv.Itoa(n)})
	}
	// The pace: the timer probability, the number of external events and
	// their rate, each from a quantile. With an intensity the external
	// count's quantile is drawn like the others (without, as an integer,
	// as it always was), and the intensity comes last, after the
	// generators, so that every draw before it is what it is without.
	qTimer, qExternals, qRate := r.Float64(), 0.0, 0.0
	exLo, exHi := c.spec.Externals[0], c.spec.Externals[1]
	externals := 0
	if exHi > 0 {
		if c.spec.Intensity > 0 {
			qExternals = r.Float64()
		} else {
			externals = exLo + r.IntN(exHi-exLo+1)
		}
	}
	rateLo, rateHi := c.spec.ExternalProb[0], c.spec.ExternalProb[1]
	if rateHi > 0 {
		qRate = r.Float64()
	}
	var weights []Option
	if gens := c.sys.Externals; c.spec.Generators && len(gens) > 1 {
		run.weights = make([]float64, len(gens))
		on := 0
		for i, g := range gens {
			scale := roundSignificant(math.Exp2(2*r.Float64() - 1))
			if r.IntN(2) == 0 {
				run.weights[i] = roundSignificant(g.Weight * scale)
				on++
			}
		}
		if on == 0 {
			i := r.IntN(len(gens))
			run.weights[i] = gens[i].Weight
		}
		for i, g := range gens {
			weights = append(weights, Option{Name: "weight." + g.Name, Value: strconv.FormatFloat(run.weights[i], 'g', -1, 64)})
		}
	}
	var intensity []Option
	correlate := func(q, sign float64) float64 { return q }
	if rho := c.spec.Intensity; rho > 0 {
		w := r.Float64()
		z := normalQuantile(w)
		correlate = func(q, sign float64) float64 {
			return normalCDF(sign*math.Sqrt(rho)*z + math.Sqrt(1-rho)*normalQuantile(q))
		}
		qTimer, qExternals, qRate = correlate(qTimer, -1), correlate(qExternals, 1), correlate(qRate, 1)
		externals = exLo + min(int(qExternals*float64(exHi-exLo+1)), exHi-exLo)
		if c.cfg.TimerProb <= 0 || c.cfg.MaxExternals == 0 || c.cfg.ExternalProb <= 0 {
			intensity = append(intensity, Option{Name: "intensity", Value: strconv.FormatFloat(roundSignificant(w), 'g', -1, 64)})
		}
	}
	logUniform := func(lo, hi, q float64) float64 {
		return roundSignificant(math.Exp(math.Log(lo) + q*(math.Log(hi)-math.Log(lo))))
	}
	if p := logUniform(c.spec.TimerProb[0], c.spec.TimerProb[1], qTimer); c.cfg.TimerProb <= 0 {
		run.cfg.TimerProb = p
		run.params = append(run.params, Option{Name: "timer-prob", Value: strconv.FormatFloat(p, 'g', -1, 64)})
	}
	if exHi > 0 && c.cfg.MaxExternals == 0 {
		run.cfg.MaxExternals = externals
		if externals == 0 {
			run.cfg.MaxExternals = -1 // none
		}
		run.params = append(run.params, Option{Name: "externals", Value: strconv.Itoa(externals)})
	}
	if rateHi > 0 && c.cfg.ExternalProb <= 0 {
		p := logUniform(rateLo, rateHi, qRate)
		run.cfg.ExternalProb = p
		run.params = append(run.params, Option{Name: "external-prob", Value: strconv.FormatFloat(p, 'g', -1, 64)})
	}
	run.params = append(append(run.params, intensity...), weights...)
	if c.spec.Sustain > 0 && c.cfg.MaxExternals == 0 && len(c.sys.Externals) > 0 {
		full := run.cfg.withDefaults()
		// Drawn through the intensity, if any, like the number of
		// external events: the runs of much workload are sustained
		// rather than those of little. A run drawn without external
		// events keeps none.
		sustain := correlate(r.Float64(), 1) >= 1-c.spec.Sustain && full.MaxExternals > 0
		if sustain {
			// The step limit for a budget: at a rate up to 1/2 the
			// run ends before it is spent.
			run.cfg.MaxExternals, run.cfg.ExternalProb = full.MaxSteps, full.ExternalProb
			run.params = setParam(run.params, "externals", strconv.Itoa(full.MaxSteps))
			run.params = setParam(run.params, "external-prob", strconv.FormatFloat(full.ExternalProb, 'g', -1, 64))
		}
		run.params = append(run.params, Option{Name: "sustain", Value: strconv.FormatBool(sustain)})
	}
	return run
}

// setParam sets the parameter name of params to value, appending it if
// it is not there.
func setParam(params []Option, name, value string) []Option {
	for i := range params {
		if params[i].Name == name {
			params[i].Value = value
			return params
		}
	}
	return append(params, Option{Name: name, Value: value})
}

// normalQuantile is the standard normal distribution's quantile function
// at q in [0, 1), q = 0 taken as the smallest double step above it.
func normalQuantile(q float64) float64 {
	return math.Sqrt2 * math.Erfinv(2*max(q, 0x1p-53)-1)
}

// normalCDF is the standard normal distribution function.
func normalCDF(x float64) float64 {
	return 0.5 * math.Erfc(-x/math.Sqrt2)
}

// roundSignificant rounds x to three significant digits, so that the value
// recorded in a header is the value used.
func roundSignificant(x float64) float64 {
	v, _ := strconv.ParseFloat(strconv.FormatFloat(x, 'g', 3, 64), 64)
	return v
}

func (c *swarmCampaign) Run(ctx context.Context, seed uint64, prev *Sim) (RunResult, error) {
	run := c.draw(seed)
	cfg := run.cfg.withDefaults()
	cfg.Seed = seed
	f, err := newFuzzer(c.plan, run.opts, cfg, true, spareLog(prev))
	if err != nil {
		return RunResult{}, err
	}
	f.weights = run.weights
	v, err := f.finish(ctx)
	if err != nil {
		return RunResult{}, err
	}
	return RunResult{Sim: f.sim, Violation: v, Config: cfg, Params: run.params}, nil
}
