package record

import "fmt"

// CheckDeepCopies replays t, a trace of sys, and checks with CheckDeepCopy
// every running actor and every stored value that implements DeepCopier,
// after every every-th event and after the last. It is for the tests of a
// system whose actors copy themselves: its shipped traces reach the states
// a hand-written DeepCopy must get right. It returns how many actors and
// stored values it checked, or the first error, naming the event and the
// actor.
func CheckDeepCopies(sys *System, t *Trace, every int) (actors, stored int, err error) {
	if every < 1 {
		return 0, 0, fmt.Errorf("record: CheckDeepCopies every %d: must be at least 1", every)
	}
	sim, err := t.Setup(sys).NewSim()
	if err != nil {
		return 0, 0, err
	}
	for k, e := range t.Events {
		if e.Kind == Deliver {
			err = sim.Deliver(e.ID)
		} else {
			err = sim.Apply(e)
		}
		if err != nil {
			return actors, stored, fmt.Errorf("event %d: %w", k, err)
		}
		if k%every != 0 && k != len(t.Events)-1 {
			continue
		}
		v := sim.View()
		for _, m := range sim.Members() {
			if d, ok := v.StateOf(m).Actor.(DeepCopier); ok {
				if err := CheckDeepCopy(d); err != nil {
					return actors, stored, fmt.Errorf("event %d, actor %s: %w", k, m, err)
				}
				actors++
			}
			st := v.Storage(m)
			for _, key := range st.Keys() {
				x, _ := st.Get(key)
				if d, ok := x.(DeepCopier); ok {
					if err := CheckDeepCopy(d); err != nil {
						return actors, stored, fmt.Errorf("event %d, actor %s, stored %q: %w", k, m, key, err)
					}
					stored++
				}
			}
		}
	}
	return actors, stored, nil
}
