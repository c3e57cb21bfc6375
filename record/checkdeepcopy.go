package record

import (
	"fmt"
	"reflect"
	"unsafe"

	"google.golang.org/protobuf/proto"
)

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
		if err := sim.Step(e); err != nil {
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

// CheckDeepCopy checks a DeepCopier against the reflective copy it stands
// in for: x.DeepCopy() must be of x's type, equal to x and share no slice
// array, map, pointer or bound function with it. Equal is reflect.DeepEqual
// but for protocol buffer messages (proto.Equal) and functions, which are
// equal when they run the same code: a method value in the copy must be of
// the same method, bound to a receiver of the copy's own (see CopyOnto). It
// is for the tests of actors that implement DeepCopier (a field the method
// forgets is caught as soon as a test state sets it).
func CheckDeepCopy(x DeepCopier) error {
	c := x.DeepCopy()
	if reflect.TypeOf(c) != reflect.TypeOf(x) {
		return fmt.Errorf("record: %T.DeepCopy returned a %T", x, c)
	}
	a, b := reflect.New(reflect.TypeOf(x)).Elem(), reflect.New(reflect.TypeOf(x)).Elem()
	a.Set(reflect.ValueOf(x))
	b.Set(reflect.ValueOf(c))
	switch path, why := compareCopy(a, b, "", 0); why {
	case differs:
		return fmt.Errorf("record: %T.DeepCopy differs from the value at %s", x, path)
	case shares:
		return fmt.Errorf("record: %T.DeepCopy shares memory with the value at %s", x, path)
	}
	return nil
}

// What compareCopy finds.
const (
	differs = "differs"
	shares  = "shares"
)

// compareCopy compares b, a copy of a (both addressable or reached from
// addressable values), and returns the path of the first place where it
// differs from a or shares a slice array, map, pointer or bound function
// with it, and which of the two; "", "" if none.
func compareCopy(a, b reflect.Value, path string, depth int) (string, string) {
	if depth > 64 {
		return "", ""
	}
	if a.CanAddr() {
		a, b = open(a), open(b)
	}
	switch a.Kind() {
	case reflect.Pointer:
		if a.IsNil() || b.IsNil() {
			return nilness(a, b, path)
		}
		if a.Pointer() == b.Pointer() {
			return path + " (pointer)", shares
		}
		if a.Type().Implements(protoMessage) { // a proto.Clone: its own memory
			if !proto.Equal(a.Interface().(proto.Message), b.Interface().(proto.Message)) {
				return path, differs
			}
			return "", ""
		}
		return compareCopy(a.Elem(), b.Elem(), path, depth+1)
	case reflect.Interface:
		if a.IsNil() || b.IsNil() {
			return nilness(a, b, path)
		}
		if a.Elem().Type() != b.Elem().Type() {
			return path, differs
		}
		return compareCopy(addressable(a.Elem()), addressable(b.Elem()), path, depth+1)
	case reflect.Slice:
		if a.IsNil() != b.IsNil() || a.Len() != b.Len() {
			return path, differs
		}
		if a.Cap() > 0 && a.Pointer() == b.Pointer() {
			return path + " (slice)", shares
		}
		for i := range a.Len() {
			if p, why := compareCopy(a.Index(i), b.Index(i), fmt.Sprintf("%s[%d]", path, i), depth+1); why != "" {
				return p, why
			}
		}
	case reflect.Map:
		if a.IsNil() != b.IsNil() || a.Len() != b.Len() {
			return path, differs
		}
		if !a.IsNil() && a.Pointer() == b.Pointer() {
			return path + " (map)", shares
		}
		for _, k := range a.MapKeys() {
			p := fmt.Sprintf("%s[%v]", path, k)
			bv := b.MapIndex(k)
			if !bv.IsValid() {
				return p, differs
			}
			if q, why := compareCopy(addressable(a.MapIndex(k)), addressable(bv), p, depth+1); why != "" {
				return q, why
			}
		}
	case reflect.Array:
		for i := range a.Len() {
			if p, why := compareCopy(a.Index(i), b.Index(i), fmt.Sprintf("%s[%d]", path, i), depth+1); why != "" {
				return p, why
			}
		}
	case reflect.Struct:
		for i := range a.NumField() {
			if p, why := compareCopy(a.Field(i), b.Field(i), path+"."+a.Type().Field(i).Name, depth+1); why != "" {
				return p, why
			}
		}
	case reflect.Func:
		if a.IsNil() || b.IsNil() {
			return nilness(a, b, path)
		}
		if a.Pointer() != b.Pointer() {
			return path, differs
		}
		if boundFunc(a) && closure(a) == closure(b) {
			return path + " (" + codeName(a) + ")", shares
		}
	case reflect.Chan:
		if a.Pointer() != b.Pointer() {
			return path, differs
		}
	default:
		if !reflect.DeepEqual(a.Interface(), b.Interface()) {
			return path, differs
		}
	}
	return "", ""
}

// nilness compares a and b where one of them is nil: "", "" if both are.
func nilness(a, b reflect.Value, path string) (string, string) {
	if a.IsNil() == b.IsNil() {
		return "", ""
	}
	return path + " (nil in one only)", differs
}

// closure returns the memory a func value points at: its closure, which
// holds a method value's receiver and a function literal's variables.
func closure(f reflect.Value) unsafe.Pointer {
	return *(*unsafe.Pointer)(addressable(f).Addr().UnsafePointer())
}
