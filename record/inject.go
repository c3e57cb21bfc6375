package record

import "math/rand/v2"

// Injections lists the external events sys's fuzz generators could inject
// in the state v, in a fixed order and without repeats: what each
// generator of positive weight lists with Generator.Each (as listed), or,
// for a generator without Each, the distinct events of injectionDraws draws of
// Make from a fixed random source (distinct by kind, actor, receiver and
// message type). A generator that follows the system's options (a weight
// option of 0 turns a kind of event off) keeps the list inside the run's
// fault model.
//
// It is the capability minimization's inject pass uses to add an external
// event the input never had: a client request where the run filled a log
// with elections, a crash-restart that drops what was queued for a
// member. The system knows which events make sense in a state; the
// minimizer only tries them.
func (s *System) Injections(v View) []Event {
	var out []Event
	seen := map[Shape]bool{}
	add := func(e Event) {
		if !e.Kind.IsExternal() {
			return
		}
		k := ShapeOf(e)
		if seen[k] {
			return
		}
		seen[k] = true
		e.Cause = -1
		out = append(out, e)
	}
	for i, g := range s.Externals {
		if g.Weight <= 0 {
			continue
		}
		if g.Each != nil {
			for _, e := range g.Each(v) {
				if e.Kind.IsExternal() {
					e.Cause = -1
					seen[ShapeOf(e)] = true
					out = append(out, e)
				}
			}
			continue
		}
		rng := rand.New(rand.NewPCG(uint64(i), 0x696e6a656374))
		for range injectionDraws {
			if e, ok := g.Make(rng, v); ok {
				add(e)
			}
		}
	}
	return out
}

// injectionDraws is how many events Injections draws from a generator
// that does not list its events.
const injectionDraws = 256
