package record

import (
	"fmt"
	"reflect"
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

// CheckDeepCopy checks a DeepCopier against the reflective copy it stands
// in for: x.DeepCopy() must be of x's type, equal to x (reflect.DeepEqual)
// and share no slice array, map or pointer with it. It is for the tests of
// actors that implement DeepCopier (a field the method forgets is caught
// as soon as a test state sets it).
func CheckDeepCopy(x DeepCopier) error {
	c := x.DeepCopy()
	if reflect.TypeOf(c) != reflect.TypeOf(x) {
		return fmt.Errorf("record: %T.DeepCopy returned a %T", x, c)
	}
	if !reflect.DeepEqual(c, x) {
		return fmt.Errorf("record: %T.DeepCopy differs from the value: %+v, want %+v", x, c, reflectCopy(x))
	}
	if p := sharedMemory(reflect.ValueOf(x), reflect.ValueOf(c), "", 0); p != "" {
		return fmt.Errorf("record: %T.DeepCopy shares memory with the value at %s", x, p)
	}
	return nil
}

// sharedMemory returns the path of a slice array, map or pointer a and b
// share, or "".
func sharedMemory(a, b reflect.Value, path string, depth int) string {
	if depth > 64 {
		return ""
	}
	switch a.Kind() {
	case reflect.Pointer:
		if a.IsNil() {
			return ""
		}
		if a.Pointer() == b.Pointer() {
			return path + " (pointer)"
		}
		return sharedMemory(a.Elem(), b.Elem(), path, depth+1)
	case reflect.Interface:
		if a.IsNil() {
			return ""
		}
		return sharedMemory(a.Elem(), b.Elem(), path, depth+1)
	case reflect.Slice:
		if a.Cap() > 0 && a.Pointer() == b.Pointer() {
			return path + " (slice)"
		}
		for i := range a.Len() {
			if p := sharedMemory(a.Index(i), b.Index(i), fmt.Sprintf("%s[%d]", path, i), depth+1); p != "" {
				return p
			}
		}
	case reflect.Map:
		if !a.IsNil() && a.Pointer() == b.Pointer() {
			return path + " (map)"
		}
		for _, k := range a.MapKeys() {
			if p := sharedMemory(a.MapIndex(k), b.MapIndex(k), fmt.Sprintf("%s[%v]", path, k), depth+1); p != "" {
				return p
			}
		}
	case reflect.Array:
		for i := range a.Len() {
			if p := sharedMemory(a.Index(i), b.Index(i), fmt.Sprintf("%s[%d]", path, i), depth+1); p != "" {
				return p
			}
		}
	case reflect.Struct:
		for i := range a.NumField() {
			if p := sharedMemory(a.Field(i), b.Field(i), path+"."+a.Type().Field(i).Name, depth+1); p != "" {
				return p
			}
		}
	}
	return ""
}
