package record

import (
	"math/rand/v2"
	"slices"
)

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

// InjectedContents lists other contents the generators' external messages
// could carry in the state v, for minimization to give an external message
// of the trace instead of its own (a job with another locality
// preference, a bootstrap with other members): for each generator without
// Each (a generator with Each says the contents it draws do not matter),
// the distinct messages of the Send events of the same injectionDraws
// draws as Injections, of Shrinkable types only; per message type at most
// n, the fewest components first, then in draw order.
func (s *System) InjectedContents(v View, n int) []Message {
	type drawn struct {
		msg   Message
		parts int
	}
	byType := map[string][]drawn{}
	var types []string
	seen := map[string]bool{}
	for i, g := range s.Externals {
		if g.Weight <= 0 || g.Each != nil {
			continue
		}
		rng := rand.New(rand.NewPCG(uint64(i), 0x696e6a656374))
		for range injectionDraws {
			e, ok := g.Make(rng, v)
			sh, shrinkable := e.Msg.(Shrinkable)
			if !ok || e.Kind != Send || !shrinkable {
				continue
			}
			enc, err := EncodeMessage(e.Msg)
			name := TypeName(e.Msg)
			if err != nil || seen[name+"\x00"+string(enc)] {
				continue
			}
			seen[name+"\x00"+string(enc)] = true
			if byType[name] == nil {
				types = append(types, name)
			}
			byType[name] = append(byType[name], drawn{e.Msg, sh.Components()})
		}
	}
	var out []Message
	for _, name := range types {
		ds := byType[name]
		slices.SortStableFunc(ds, func(a, b drawn) int { return a.parts - b.parts })
		for _, d := range ds[:min(n, len(ds))] {
			out = append(out, d.msg)
		}
	}
	return out
}
