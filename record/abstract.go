package record

import (
	"fmt"
	"reflect"
	"sort"
)

// Abstracted is implemented by actors that map their state onto an
// abstract state for coverage-guided fuzzing (demi fuzz --mode coverage),
// the way ModelFuzz maps an implementation's state onto the variables of
// a TLA+ model: keep what the protocol's correctness turns on (a Raft
// member's role, term, vote, commit index and the terms of its log) and
// leave out what only makes states differ without making them
// interesting (command payloads, timers, counters of retries). Two global
// states with the same abstract states, member by member, count once.
type Abstracted interface {
	AbstractState() string
}

// Abstraction maps the states of a run's actors onto abstract states, one
// hash per actor, kept up to date event by event. The global abstract
// state is the combination of the members' hashes in member order.
//
// An actor that implements Abstracted is abstracted by it. Otherwise its
// Snapshot (Snapshotter) is: its fields (of a map or a struct, one level
// deep) that hold a number, a string or a boolean count with their value,
// its collections (slices, maps, arrays) with their length only. An actor
// with neither is abstracted as running. A member that is down is
// abstracted as down.
type Abstraction struct {
	per []uint64
}

// NewAbstraction prepares an abstraction of the members of s, from s's
// current state.
func NewAbstraction(s *Sim) *Abstraction {
	a := &Abstraction{per: make([]uint64, len(s.members))}
	for i := range s.members {
		a.per[i] = a.actor(s, i)
	}
	return a
}

// Update recomputes the abstract state of the actor that event e changed
// (its receiver or subject; all members for a partition or a heal, which
// change none) and returns the global abstract state.
func (a *Abstraction) Update(s *Sim, e *Event) uint64 {
	switch e.Kind {
	case Deliver:
		a.refresh(s, e.To)
	case Start, Kill, Restart:
		a.refresh(s, e.Actor)
	}
	return a.Global()
}

// Global returns the global abstract state.
func (a *Abstraction) Global() uint64 {
	h := uint64(fnvOffset)
	for _, x := range a.per {
		for i := 0; i < 64; i += 8 {
			h = (h ^ (x >> i & 0xff)) * fnvPrime
		}
	}
	return h
}

// FNV-1a, 64 bits.
const (
	fnvOffset = 14695981039346656037
	fnvPrime  = 1099511628211
)

func (a *Abstraction) refresh(s *Sim, id ActorID) {
	if i := s.idx(id); i >= 0 {
		a.per[i] = a.actor(s, i)
	}
}

func (a *Abstraction) actor(s *Sim, i int) uint64 {
	act := s.slots[i].actor
	if act == nil {
		return 0
	}
	var text string
	switch x := act.(type) {
	case Abstracted:
		text = x.AbstractState()
	case Snapshotter:
		text = AbstractSnapshot(x.Snapshot())
	default:
		return 1
	}
	h := uint64(fnvOffset)
	for i := 0; i < len(text); i++ {
		h = (h ^ uint64(text[i])) * fnvPrime
	}
	return h | 2 // never 0 (down) or 1
}

// AbstractSnapshot is the default abstraction of a snapshot (see
// Abstraction): its scalar fields with their values, its collections
// with their lengths, in a stable order.
func AbstractSnapshot(snap any) string {
	rv := reflect.ValueOf(snap)
	for rv.Kind() == reflect.Pointer || rv.Kind() == reflect.Interface {
		if rv.IsNil() {
			return "nil"
		}
		rv = rv.Elem()
	}
	type kv struct{ k, v string }
	var fields []kv
	switch rv.Kind() {
	case reflect.Map:
		for it := rv.MapRange(); it.Next(); {
			fields = append(fields, kv{fmt.Sprint(it.Key().Interface()), abstractValue(it.Value())})
		}
	case reflect.Struct:
		t := rv.Type()
		for i := 0; i < rv.NumField(); i++ {
			if t.Field(i).IsExported() {
				fields = append(fields, kv{t.Field(i).Name, abstractValue(rv.Field(i))})
			}
		}
	default:
		return abstractValue(rv)
	}
	sort.Slice(fields, func(i, j int) bool { return fields[i].k < fields[j].k })
	out := make([]byte, 0, 16*len(fields))
	for _, f := range fields {
		out = append(out, f.k...)
		out = append(out, '=')
		out = append(out, f.v...)
		out = append(out, ';')
	}
	return string(out)
}

// abstractValue is one field of a snapshot: a scalar's value, a
// collection's length.
func abstractValue(v reflect.Value) string {
	for v.Kind() == reflect.Pointer || v.Kind() == reflect.Interface {
		if v.IsNil() {
			return "nil"
		}
		v = v.Elem()
	}
	switch v.Kind() {
	case reflect.Slice, reflect.Map, reflect.Array:
		return fmt.Sprintf("#%d", v.Len())
	case reflect.Bool, reflect.String, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Float32, reflect.Float64:
		return fmt.Sprint(v.Interface())
	}
	return v.Kind().String()
}
