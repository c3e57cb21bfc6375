package record

import "math/rand/v2"

// ActorState is everything the runtime holds for one actor: what an
// exhaustive search (package optimal) hashes to recognize a global state it
// has seen. Nothing in it may be modified.
type ActorState struct {
	Running     bool
	Actor       Actor // nil unless running
	Storage     Storage
	Incarnation int
	// Rand is the actor's random source, nil until the actor first drew
	// from it.
	Rand *rand.Rand
}

// StateOf returns actor id's state (the zero ActorState for an unknown id).
func (v View) StateOf(id ActorID) ActorState {
	i, ok := v.s.index[id]
	if !ok {
		return ActorState{}
	}
	sl := v.s.slots[i]
	return ActorState{Running: sl.actor != nil, Actor: sl.actor, Storage: sl.storage,
		Incarnation: sl.incarnation, Rand: sl.rng}
}
