package record

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strconv"
	"strings"
)

// Round-by-round sampling (demi fuzz --mode rounds): the testing
// algorithm of "Testing consensus implementations using communication
// closure" (Drăgoi et al., OOPSLA 2020, Algorithm 1).
//
// A communication-closed protocol behaves as if it ran in lockstep rounds
// in which every message is either received in its round or lost for
// good: a lossy synchronous execution. For leader-based protocols every
// such execution is uniform (the paper's Theorem 5.3): a round's losses are
// exactly the messages sent or received by a set of isolated processes;
// the others, the round's kernel, hear from each other. Algorithm 1 samples
// uniform executions with two bounds: at most d isolations over the
// execution (small faults find most bugs) and isolated processes rejoin
// only every k rounds (k-periodic: a failed phase of the protocol, then a
// fresh one).
//
// On a Sim a round is one communication step: every message in flight when
// the round begins is delivered, in random order, unless its sender or
// receiver is isolated in the round; what those deliveries send belongs to
// the next round. A round with nothing in flight fires a timer (an election
// timeout, a heartbeat), and a timer may also fire at the start of a busy
// round with probability TimerProb. Isolation is a partition of the
// isolated process from every other member, healed when the round's
// isolated set changes: the run is an ordinary trace of deliveries and
// partition and heal events, which replays and minimizes like any other.

// Rounds is the round-by-round mode with the paper's defaults (RoundsMode).
var Rounds Mode = RoundsMode{}

// RoundsMode samples uniform lossy synchronous runs (demi fuzz --mode
// rounds): each run draws its isolation plan (SampleRoundPlan) from its
// seed, so the same seed gives the same run. It needs a system some of
// whose message types implement Rounded.
type RoundsMode struct {
	// Rounds is r, the rounds in which processes may be isolated (default
	// 40); the run goes on without losses after them, up to MaxSteps.
	Rounds int
	// Period is k: the isolated set is drawn afresh every k rounds, a
	// process isolated in a period stays isolated to its end (default 4).
	Period int
	// Isolations is d, the bound on the isolations of a run, summed over
	// the periods (default 2).
	Isolations int
}

func (m RoundsMode) withDefaults() RoundsMode {
	if m.Rounds <= 0 {
		m.Rounds = 40
	}
	if m.Period <= 0 {
		m.Period = 4
	}
	if m.Isolations <= 0 {
		m.Isolations = 2
	}
	return m
}

// Name is "rounds".
func (RoundsMode) Name() string { return "rounds" }

// Campaign prepares a search of sys in rounds.
func (m RoundsMode) Campaign(sys *System, opts Options, cfg SearchConfig) (Campaign, error) {
	if !HasRounds(sys) {
		return nil, fmt.Errorf("system %s: %w", sys.Name, ErrNoRounds)
	}
	c := &roundsCampaign{cfg: cfg.FuzzConfig.withDefaults(), mode: m.withDefaults()}
	var err error
	c.mix, err = newSwarmMix(sys, opts, c.cfg)
	c.plan = c.mix.c.plan
	return c, err
}

type roundsCampaign struct {
	plan *simPlan
	cfg  FuzzConfig
	mode RoundsMode
	mix  swarmMix
}

func (c *roundsCampaign) Run(ctx context.Context, seed uint64, prev *Sim) (RunResult, error) {
	cfg := c.cfg
	cfg.Seed = seed
	opts, weights, drawn := c.mix.draw(seed)
	rr, err := newRoundsRun(c.plan, opts, cfg, c.mode, spareLog(prev))
	if err != nil {
		return RunResult{}, err
	}
	rr.weights = weights
	v, err := rr.run(ctx)
	if err != nil {
		return RunResult{}, err
	}
	return RunResult{Sim: rr.sim, Violation: v, Config: cfg, Params: append([]Option{
		{Name: "isolations", Value: strconv.Itoa(c.mode.Isolations)},
		{Name: "period", Value: strconv.Itoa(c.mode.Period)},
		{Name: "rounds", Value: strconv.Itoa(c.mode.Rounds)},
		{Name: "isolated", Value: rr.plan.String()},
	}, drawn...)}, nil
}

// ErrNoRounds is returned by the rounds mode for a system none of whose
// message types implements Rounded.
var ErrNoRounds = errors.New("no message type of the system carries a round (record.Rounded)")

// HasRounds reports whether some message type of sys implements Rounded.
func HasRounds(sys *System) bool {
	rounded := reflect.TypeFor[Rounded]()
	for _, m := range sys.Messages {
		if m != nil && reflect.TypeOf(m).Implements(rounded) {
			return true
		}
	}
	return false
}

// RoundPlan is the isolation schedule Algorithm 1 draws for one run: for
// each of the first Rounds rounds, the members isolated in it.
type RoundPlan struct {
	Period   int
	Isolated [][]ActorID // by round; nil: none
}

// SampleRoundPlan draws a plan (Algorithm 1, lines 1 and 5-8): the d
// isolations are spread over the r/k periods (at most one per member and
// period), each period isolates that many members drawn uniformly, and
// each isolated member drops out of the kernel at a uniformly drawn round
// of the period and stays out until the period ends.
func SampleRoundPlan(r *rand.Rand, members []ActorID, rounds, period, d int) RoundPlan {
	plan := RoundPlan{Period: period, Isolated: make([][]ActorID, rounds)}
	periods := (rounds + period - 1) / period
	n := len(members)
	if periods == 0 || n == 0 {
		return plan
	}
	// Line 1: distribute d over the periods, at most n in each.
	per := make([]int, periods)
	for left := min(d, periods*n); left > 0; {
		p := r.IntN(periods)
		if per[p] < n {
			per[p]++
			left--
		}
	}
	for p, dp := range per {
		// Lines 6-7: the period's isolated members and where each starts.
		chosen := slices.Clone(members)
		r.Shuffle(len(chosen), func(i, j int) { chosen[i], chosen[j] = chosen[j], chosen[i] })
		chosen = chosen[:dp]
		first := make([]int, dp)
		for i := range first {
			first[i] = r.IntN(period)
		}
		// Line 8: the kernel of round i is everyone not isolated by then.
		for off := 0; off < period; off++ {
			i := p*period + off
			if i >= rounds {
				break
			}
			var iso []ActorID
			for j, id := range chosen {
				if first[j] <= off {
					iso = append(iso, id)
				}
			}
			slices.SortFunc(iso, func(a, b ActorID) int { return slices.Index(members, a) - slices.Index(members, b) })
			plan.Isolated[i] = iso
		}
	}
	return plan
}

// String lists the rounds that isolate someone, e.g. "3:{raft-2} 4:{raft-2}".
func (p RoundPlan) String() string {
	var b strings.Builder
	for i, iso := range p.Isolated {
		if len(iso) > 0 {
			if b.Len() > 0 {
				b.WriteByte(' ')
			}
			fmt.Fprintf(&b, "%d:%s", i, joinIDs(iso))
		}
	}
	if b.Len() == 0 {
		return "none"
	}
	return b.String()
}

// roundsRun is one run of the rounds mode.
type roundsRun struct {
	fuzzer
	plan     RoundPlan
	cuts     []Event // the partitions isolating the current round's set
	isolated []ActorID
	injected int
}

func newRoundsRun(sims *simPlan, opts Options, cfg FuzzConfig, m RoundsMode, spare chunks[entry]) (*roundsRun, error) {
	f, err := newFuzzer(sims, opts, cfg, true, spare)
	if err != nil {
		return nil, err
	}
	f.sim.sch.on = false // the waves pick from the pending list themselves
	// A stream of its own, so that the plan does not shift the deliveries.
	pr := rand.New(rand.NewPCG(cfg.Seed, 0x726f756e6473))
	plan := SampleRoundPlan(pr, f.sim.members, m.Rounds, m.Period, m.Isolations)
	return &roundsRun{fuzzer: *f, plan: plan}, nil
}

func (r *roundsRun) run(ctx context.Context) (*Violation, error) {
	s := r.sim
	if s.sys.Setup != nil {
		for _, e := range s.sys.Setup(s.opts) {
			if v, err := r.external(e); v != nil || err != nil {
				return v, err
			}
		}
	}
	idle := 0
	for round := 0; s.deliveries < r.cfg.MaxSteps; round++ {
		if round&63 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		var iso []ActorID
		if round < len(r.plan.Isolated) {
			iso = r.plan.Isolated[round]
		}
		if v, err := r.isolate(iso); v != nil || err != nil {
			return v, err
		}
		before := s.eventCount()
		if r.injected < r.cfg.MaxExternals && len(s.sys.Externals) > 0 && r.rng.Float64() < r.cfg.ExternalProb*float64(len(s.members)) {
			r.injected++
			if e, ok := r.pickExternal(); ok {
				if v, err := r.external(e); v != nil || err != nil {
					return v, err
				}
			}
		}
		v, err := r.wave()
		if v != nil || err != nil {
			return v, err
		}
		if s.eventCount() == before {
			// Nothing in flight, no timer: only an external can go on.
			idle++
			if idle > 8 || r.injected >= r.cfg.MaxExternals || len(s.sys.Externals) == 0 {
				break
			}
		} else {
			idle = 0
		}
	}
	return s.Check(), nil
}

// isolate makes iso the isolated set: heals the previous set's partitions
// and cuts each member of iso off from every other member.
func (r *roundsRun) isolate(iso []ActorID) (*Violation, error) {
	if slices.Equal(iso, r.isolated) {
		return nil, nil
	}
	s := r.sim
	for _, c := range r.cuts {
		if err := s.Apply(HealEvent(c.A, c.B)); err != nil {
			return nil, fmt.Errorf("rounds: %w", err)
		}
	}
	r.cuts = r.cuts[:0]
	for _, id := range iso {
		others := make([]ActorID, 0, len(s.members)-1)
		for _, m := range s.members {
			if m != id {
				others = append(others, m)
			}
		}
		e := PartitionEvent([]ActorID{id}, others)
		if err := s.Apply(e); err != nil {
			return nil, fmt.Errorf("rounds: %w", err)
		}
		r.cuts = append(r.cuts, e)
	}
	r.isolated = iso
	return s.Check(), nil
}

// wave runs one round: a timer when nothing is in flight (or by chance),
// then every message in flight at the round's start, in random order.
func (r *roundsRun) wave() (*Violation, error) {
	s := r.sim
	limit := s.nextID // messages sent from here on belong to the next round
	inFlight := false
	for i := range s.pend {
		if p := &s.pend[i]; !p.gone() && p.Timer == "" && s.runningAt(p.to) {
			inFlight = true
			break
		}
	}
	// Timers first: each fires with probability TimerProb (so that, say,
	// two members may time out in the same round), and one surely when
	// nothing is in flight.
	var timers []MsgID
	for i := range s.pend {
		if p := &s.pend[i]; !p.gone() && p.Timer != "" && s.runningAt(p.to) {
			timers = append(timers, p.ID)
		}
	}
	r.rng.Shuffle(len(timers), func(i, j int) { timers[i], timers[j] = timers[j], timers[i] })
	fired := 0
	for k, id := range timers {
		if r.rng.Float64() >= r.cfg.TimerProb && (inFlight || fired > 0 || k < len(timers)-1) {
			continue
		}
		if at := s.find(id); at >= 0 && s.runningAt(s.pend[at].to) {
			fired++
			if _, v, err := r.delivered(at); v != nil || err != nil {
				return v, err
			}
		}
	}
	// A client's message (from outside the system) waits for a later
	// round with probability 1/2: the harness chooses when clients send.
	var held map[MsgID]bool
	for i := range s.pend {
		if p := &s.pend[i]; !p.gone() && p.From == External && p.ID < limit && r.rng.IntN(2) == 0 {
			if held == nil {
				held = map[MsgID]bool{}
			}
			held[p.ID] = true
		}
	}
	for s.deliveries < r.cfg.MaxSteps {
		r.buf, _ = s.enabled(r.buf[:0])
		n := 0
		for _, at := range r.buf {
			if p := &s.pend[at]; p.Timer == "" && p.ID < limit && !held[p.ID] {
				r.buf[n] = at
				n++
			}
		}
		if n == 0 {
			return nil, nil
		}
		if _, v, err := r.delivered(int(r.buf[r.rng.IntN(n)])); v != nil || err != nil {
			return v, err
		}
	}
	return nil, nil
}
