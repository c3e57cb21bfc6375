package minimize

import (
	"reflect"
	"slices"

	"github.com/demi-project/demi/record"
)

// shrink-contents renames a value of a domain (message type and field path) to a smaller one the
// domain does not hold, in every external message, so equalities stay; in a Shrinkable message only
// to zero (a smaller member name would name another member).

// renamer lists the renames of one trace's external messages.
type renamer struct {
	base     *record.Trace
	used     map[string]map[any]bool // the values of each domain
	first    map[int][]domainValue   // the (domain, value) pairs by the send that holds them first
	zeroOnly map[string]bool         // the domains of Shrinkable messages
}

type domainValue struct {
	domain string
	value  reflect.Value
}

func newRenamer(base *record.Trace) *renamer {
	r := &renamer{base: base, used: map[string]map[any]bool{}, first: map[int][]domainValue{}, zeroOnly: map[string]bool{}}
	for i, e := range base.Events {
		if e.Kind != record.Send || e.Msg == nil {
			continue
		}
		_, sh := e.Msg.(record.Shrinkable)
		mapLeaves(reflect.ValueOf(e.Msg), record.TypeName(e.Msg), 0, func(domain string, v reflect.Value) reflect.Value {
			r.zeroOnly[domain] = sh
			u := r.used[domain]
			if u == nil {
				u = map[any]bool{}
				r.used[domain] = u
			}
			if !u[v.Interface()] {
				u[v.Interface()] = true
				r.first[i] = append(r.first[i], domainValue{domain, v})
			}
			return v
		})
	}
	return r
}

// renamesAt returns the renames of the values send i holds first.
func (r *renamer) renamesAt(i int) []map[int]record.Message {
	var out []map[int]record.Message
	for _, dv := range r.first[i] {
		for _, to := range r.targets(dv) {
			repl := map[int]record.Message{}
			for j, e := range r.base.Events {
				if j < i || e.Kind != record.Send || e.Msg == nil {
					continue
				}
				changed := false
				nv := mapLeaves(reflect.ValueOf(e.Msg), record.TypeName(e.Msg), 0, func(domain string, v reflect.Value) reflect.Value {
					if domain != dv.domain || v.Interface() != dv.value.Interface() {
						return v
					}
					changed = true
					return to
				})
				if changed {
					repl[j] = nv.Interface().(record.Message)
				}
			}
			out = append(out, repl)
		}
	}
	return out
}

// targets lists the smallest free value of dv's domain and half of dv.
func (r *renamer) targets(dv domainValue) []reflect.Value {
	u, v, t := r.used[dv.domain], dv.value, dv.value.Type()
	var out []reflect.Value
	if r.zeroOnly[dv.domain] {
		if z := reflect.Zero(t); !v.IsZero() && !u[z.Interface()] {
			out = append(out, z)
		}
		return out
	}
	add := func(y reflect.Value) {
		if !u[y.Interface()] && !slices.ContainsFunc(out, func(o reflect.Value) bool { return o.Interface() == y.Interface() }) {
			out = append(out, y)
		}
	}
	// addFree adds the smallest free value below the bound (at most len(u)).
	addFree := func(below func(y int64) bool) {
		for y := int64(0); below(y) && y <= int64(len(u)); y++ {
			if w := reflect.ValueOf(y).Convert(t); !u[w.Interface()] {
				add(w)
				return
			}
		}
	}
	var half reflect.Value
	switch v.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		x := v.Int()
		addFree(func(y int64) bool { return y < x || y < -x })
		half = reflect.ValueOf(x / 2)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		x := v.Uint()
		addFree(func(y int64) bool { return uint64(y) < x })
		half = reflect.ValueOf(x / 2)
	case reflect.String:
		if s := v.String(); s != "" {
			add(reflect.ValueOf("").Convert(t))
			half = reflect.ValueOf(s[:len(s)/2])
		}
	}
	if half.IsValid() && !v.IsZero() { // a one-letter string's half is "", added already or used
		add(half.Convert(t))
	}
	return out
}

// mapLeaves returns a copy of v (path names it) in which every integer and string is f of its domain and value, in
// field order: exported fields not tagged demi:"-", slice elements and pointers, to depth maxValueDepth.
func mapLeaves(v reflect.Value, path string, depth int, f func(domain string, v reflect.Value) reflect.Value) reflect.Value {
	if depth > maxValueDepth || !v.IsValid() {
		return v
	}
	switch v.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.String:
		return f(path, v)
	case reflect.Slice:
		if v.IsNil() {
			return v
		}
		s := reflect.MakeSlice(v.Type(), v.Len(), v.Len())
		for k := 0; k < v.Len(); k++ {
			s.Index(k).Set(mapLeaves(v.Index(k), path+"[]", depth+1, f))
		}
		return s
	case reflect.Struct:
		t, c := v.Type(), reflect.New(v.Type()).Elem()
		c.Set(v)
		for i := 0; i < t.NumField(); i++ {
			if sf := t.Field(i); sf.IsExported() && sf.Tag.Get("demi") != "-" {
				c.Field(i).Set(mapLeaves(v.Field(i), path+"."+sf.Name, depth+1, f))
			}
		}
		return c
	case reflect.Pointer:
		if v.IsNil() {
			return v
		}
		p := reflect.New(v.Type().Elem())
		p.Elem().Set(mapLeaves(v.Elem(), path, depth+1, f))
		return p
	}
	return v
}
