package record

// Setup is how a run is set up: the system, its options and the seed. Two
// Sims built from equal Setups are the same run: given the same schedule they
// send the same messages with the same IDs and reach the same states, which
// is what lets a schedule be replayed, followed loosely, or re-executed to
// step backwards.
//
// Setup is a value: copy it freely. The Options are shared, not copied;
// do not mutate them after handing them over.
type Setup struct {
	System  *System
	Options Options
	Seed    uint64
}

// NewSim prepares a fresh run of the setup. No actor is started yet.
func (s Setup) NewSim() (*Sim, error) { return NewSim(s.System, s.Options, s.Seed) }

// Setup returns how the trace's run was set up, on sys (the system the
// trace names, as a Catalog or Decode returns it).
func (t *Trace) Setup(sys *System) Setup {
	return Setup{System: sys, Options: t.Header.OptionMap(), Seed: t.Header.Seed}
}

// Setup returns how the run was set up, with its options resolved.
func (s *Sim) Setup() Setup { return Setup{System: s.sys, Options: s.opts, Seed: s.seed} }
