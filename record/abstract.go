package record

import (
	"fmt"
	"math"
	"reflect"
	"sort"
	"strconv"
)

// Abstract states, for coverage-guided fuzzing (demi fuzz --mode
// coverage). ModelFuzz maps an implementation's state onto the variables
// of a TLA+ model and keeps a mutant when it reaches a model state no run
// reached before. That works only when the abstraction is bounded and
// keeps what the protocol's correctness turns on: a state that holds an
// ever-growing counter (a term, a log index, a sequence number) is new at
// nearly every step, every run joins the corpus, and novelty guides
// nothing.
//
// A system gives its own abstraction with System.Abstract. Without one,
// the default abstraction reads every member's Snapshot (Snapshotter):
// its fields (of a map or a struct, one level deep) that hold a string or
// a boolean count with their value; a number, and a collection's length,
// count as a counter (see abstractCounter): a small value (0 to 2) as
// itself, a larger one by how far it is below the largest value of that
// field among the members (0, 1, 2, or 3 and more). So "raft-2's term is
// one below the others'" is kept and "the term is 117" is not. A member
// without a snapshot is abstracted as running, a member that is down as
// down.

// Abstraction maps the states of a run's actors onto abstract states, kept
// up to date event by event: Global is the hash of the run's current
// abstract state.
type Abstraction struct {
	s      *Sim
	custom func(View) string // System.Abstract, or nil: the default
	// The default abstraction's snapshot fields, per member (nil: down,
	// empty: running without a snapshot), refreshed for the member an
	// event changes.
	per  [][]absField
	down []bool
	max  map[string]float64 // scratch: each counter's largest value
}

// absField is one field of a member's snapshot: a value (str) or a
// counter (num).
type absField struct {
	key     string
	str     string
	num     float64
	counter bool
}

// NewAbstraction prepares an abstraction of the members of s, from s's
// current state.
func NewAbstraction(s *Sim) *Abstraction {
	a := &Abstraction{s: s, custom: s.sys.Abstract}
	if a.custom == nil {
		a.per = make([][]absField, len(s.members))
		a.down = make([]bool, len(s.members))
		a.max = map[string]float64{}
		for i := range s.members {
			a.refreshAt(i)
		}
	}
	return a
}

// Update accounts for event e, just applied (the default abstraction
// reads the snapshot of the actor e changed again: its receiver or
// subject), and returns the global abstract state.
func (a *Abstraction) Update(e *Event) uint64 {
	if a.custom == nil {
		switch e.Kind {
		case Deliver:
			a.refresh(e.To)
		case Start, Kill, Restart:
			a.refresh(e.Actor)
		}
	}
	return a.Global()
}

// Global returns the hash of the run's current abstract state.
func (a *Abstraction) Global() uint64 {
	if a.custom != nil {
		return hashString(fnvOffset, a.custom(a.s.View()))
	}
	clear(a.max)
	for i, fs := range a.per {
		if a.down[i] {
			continue
		}
		for _, f := range fs {
			if m, ok := a.max[f.key]; f.counter && (!ok || f.num > m) {
				a.max[f.key] = f.num
			}
		}
	}
	h := uint64(fnvOffset)
	var buf []byte
	for i, fs := range a.per {
		if a.down[i] {
			h = hashString(h, "\x00down\x00")
			continue
		}
		buf = buf[:0]
		for _, f := range fs {
			buf = append(buf, f.key...)
			buf = append(buf, '=')
			if f.counter {
				buf = append(buf, abstractCounter(f.num, a.max[f.key])...)
			} else {
				buf = append(buf, f.str...)
			}
			buf = append(buf, ';')
		}
		h = hashString(h, string(buf))
		h = hashString(h, "\x00")
	}
	return h
}

// abstractCounter is the default abstraction of a number v whose largest
// value among the members is hi: v itself when it is 0, 1 or 2; otherwise
// how far below hi it is, 3 standing for 3 and more. A counter thus has
// at most seven abstract values, whatever the length of the run.
func abstractCounter(v, hi float64) string {
	if v >= 0 && v <= 2 && v == math.Trunc(v) {
		return strconv.Itoa(int(v))
	}
	d := hi - v
	switch {
	case d < 1:
		return "^0"
	case d < 2:
		return "^1"
	case d < 3:
		return "^2"
	}
	return "^3+"
}

// FNV-1a, 64 bits.
const (
	fnvOffset = 14695981039346656037
	fnvPrime  = 1099511628211
)

func hashString(h uint64, s string) uint64 {
	for i := 0; i < len(s); i++ {
		h = (h ^ uint64(s[i])) * fnvPrime
	}
	return h
}

func (a *Abstraction) refresh(id ActorID) {
	if i := a.s.idx(id); i >= 0 {
		a.refreshAt(i)
	}
}

func (a *Abstraction) refreshAt(i int) {
	act := a.s.slots[i].actor
	a.down[i] = act == nil
	a.per[i] = a.per[i][:0]
	if snap, ok := act.(Snapshotter); ok {
		a.per[i] = snapshotFields(a.per[i], snap.Snapshot())
	}
}

// snapshotFields appends the fields of a snapshot to out, sorted by name.
func snapshotFields(out []absField, snap any) []absField {
	rv := reflect.ValueOf(snap)
	for rv.Kind() == reflect.Pointer || rv.Kind() == reflect.Interface {
		if rv.IsNil() {
			return append(out, absField{key: "", str: "nil"})
		}
		rv = rv.Elem()
	}
	start := len(out)
	switch rv.Kind() {
	case reflect.Map:
		for it := rv.MapRange(); it.Next(); {
			out = append(out, abstractField(fmt.Sprint(it.Key().Interface()), it.Value()))
		}
	case reflect.Struct:
		t := rv.Type()
		for i := 0; i < rv.NumField(); i++ {
			if t.Field(i).IsExported() {
				out = append(out, abstractField(t.Field(i).Name, rv.Field(i)))
			}
		}
	default:
		return append(out, abstractField("", rv))
	}
	fs := out[start:]
	sort.Slice(fs, func(i, j int) bool { return fs[i].key < fs[j].key })
	return out
}

// abstractField is one field of a snapshot: a number or a collection's
// length as a counter, a string or a boolean as its value.
func abstractField(key string, v reflect.Value) absField {
	for v.Kind() == reflect.Pointer || v.Kind() == reflect.Interface {
		if v.IsNil() {
			return absField{key: key, str: "nil"}
		}
		v = v.Elem()
	}
	switch v.Kind() {
	case reflect.Slice, reflect.Map, reflect.Array:
		return absField{key: key + "#", num: float64(v.Len()), counter: true}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return absField{key: key, num: float64(v.Int()), counter: true}
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return absField{key: key, num: float64(v.Uint()), counter: true}
	case reflect.Float32, reflect.Float64:
		return absField{key: key, num: v.Float(), counter: true}
	case reflect.Bool, reflect.String:
		return absField{key: key, str: fmt.Sprint(v.Interface())}
	}
	return absField{key: key, str: v.Kind().String()}
}

// AbstractSnapshot is the default abstraction of one snapshot taken
// alone (see Abstraction), in a stable order: each counter is compared
// with itself, so it reads as its value when small and as "^0" otherwise.
func AbstractSnapshot(snap any) string {
	out := make([]byte, 0, 64)
	for _, f := range snapshotFields(nil, snap) {
		out = append(out, f.key...)
		out = append(out, '=')
		if f.counter {
			out = append(out, abstractCounter(f.num, f.num)...)
		} else {
			out = append(out, f.str...)
		}
		out = append(out, ';')
	}
	return string(out)
}
