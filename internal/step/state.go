package step

import (
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/demi-project/demi/record"
)

// State is an actor's state at one point of an execution, rendered as text
// so that it can be kept after the run moves on and compared with the
// state at another point.
type State struct {
	Actor   record.ActorID
	Running bool
	// Reflected is set when the actor has no Snapshot method and its
	// fields were read through reflection.
	Reflected bool
	// Fields are the parts of the state: a snapshot map's entries sorted by
	// key, or a struct's fields in declaration order.
	Fields []Field
}

// Field is one named part of an actor's state.
type Field struct {
	Name string
	// Short is the value folded for the screen: long collections show
	// their first and last elements and how many are left out, deep
	// values are cut, and the whole fits in a line.
	Short string
	// Full is the value unfolded (bounded by fullLimit bytes).
	Full string
}

// Field returns the field named name.
func (s State) Field(name string) (Field, bool) {
	for _, f := range s.Fields {
		if f.Name == name {
			return f, true
		}
	}
	return Field{}, false
}

// How values are folded. A collection longer than foldItems shows its
// first foldHead and last foldTail elements; a short value longer than
// shortWidth runes is cut; values nest at most shortDepth levels on the
// screen and fullDepth levels unfolded; an unfolded value stops after
// fullLimit bytes.
const (
	foldItems  = 8
	foldHead   = 3
	foldTail   = 2
	shortWidth = 72
	shortDepth = 4
	fullDepth  = 12
	fullLimit  = 64 << 10
)

// Capture renders the state of actor a (nil when it is not running).
// An actor with a Snapshot method is shown by its snapshot; any other actor
// by its own fields, read through reflection (unexported ones included).
func Capture(id record.ActorID, a record.Actor) State {
	st := State{Actor: id, Running: a != nil}
	if a == nil {
		return st
	}
	var v any = a
	if s, ok := a.(record.Snapshotter); ok {
		v = s.Snapshot()
	} else {
		st.Reflected = true
	}
	rv := reflect.ValueOf(v)
	var root uintptr // the actor itself: a field pointing back to it is a cycle
	if rv.IsValid() && rv.Kind() == reflect.Pointer {
		root = rv.Pointer()
	}
	field := func(name string, v reflect.Value) Field {
		return Field{Name: name, Short: render(v, true, root), Full: render(v, false, root)}
	}
	for rv.IsValid() && (rv.Kind() == reflect.Pointer || rv.Kind() == reflect.Interface) && !rv.IsNil() {
		rv = rv.Elem()
	}
	switch {
	case rv.IsValid() && rv.Kind() == reflect.Map:
		for _, e := range sortedKeys(rv) {
			st.Fields = append(st.Fields, field(e.name, rv.MapIndex(e.key)))
		}
	case rv.IsValid() && rv.Kind() == reflect.Struct:
		t := rv.Type()
		for i := 0; i < t.NumField(); i++ {
			st.Fields = append(st.Fields, field(t.Field(i).Name, rv.Field(i)))
		}
	default:
		st.Fields = []Field{field("state", rv)}
	}
	return st
}

// render formats v like %v does (maps sorted by key), folded or not.
// root, if not 0, is a pointer already being printed.
func render(v reflect.Value, fold bool, root uintptr) string {
	p := &printer{fold: fold, seen: map[uintptr]bool{root: root != 0}}
	p.value(v, 0)
	return p.finish()
}

// mapEntry is a key of a map and its rendering (unfolded).
type mapEntry struct {
	key  reflect.Value
	name string
}

// sortedKeys returns the keys of map m ordered by their renderings.
func sortedKeys(m reflect.Value) []mapEntry {
	keys := m.MapKeys()
	es := make([]mapEntry, len(keys))
	for i, k := range keys {
		es[i] = mapEntry{k, render(k, false, 0)}
	}
	slices.SortStableFunc(es, func(a, b mapEntry) int { return strings.Compare(a.name, b.name) })
	return es
}

// Contents renders a message field by field (its String method, if any,
// is not used: it may leave fields out), unfolded.
func Contents(m any) string {
	p := &printer{seen: map[uintptr]bool{}, raw: true}
	p.value(reflect.ValueOf(m), 0)
	return p.finish()
}

func (p *printer) finish() string {
	s := p.b.String()
	if p.fold && len([]rune(s)) > shortWidth {
		s = string([]rune(s)[:shortWidth-1]) + "…"
	}
	return s
}

type printer struct {
	b    strings.Builder
	fold bool
	raw  bool             // do not call String at the top level
	seen map[uintptr]bool // pointers being printed: a cycle prints as <cycle>
}

func (p *printer) full() bool { return !p.fold && p.b.Len() > fullLimit }

func (p *printer) value(v reflect.Value, depth int) {
	if p.full() {
		return
	}
	if !v.IsValid() {
		p.b.WriteString("<nil>")
		return
	}
	if (p.fold && depth > shortDepth) || depth > fullDepth {
		p.b.WriteString("…")
		return
	}
	raw := p.raw
	p.raw = false
	if v.CanInterface() && !raw {
		switch x := v.Interface().(type) {
		case fmt.Stringer:
			if v.Kind() != reflect.Pointer || !v.IsNil() {
				p.b.WriteString(safeString(x))
				return
			}
		case error:
			if v.Kind() != reflect.Pointer || !v.IsNil() {
				p.b.WriteString(x.Error())
				return
			}
		}
	}
	switch v.Kind() {
	case reflect.Bool:
		p.b.WriteString(strconv.FormatBool(v.Bool()))
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		p.b.WriteString(strconv.FormatInt(v.Int(), 10))
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		p.b.WriteString(strconv.FormatUint(v.Uint(), 10))
	case reflect.Float32, reflect.Float64:
		p.b.WriteString(strconv.FormatFloat(v.Float(), 'g', -1, 64))
	case reflect.Complex64, reflect.Complex128:
		p.b.WriteString(strconv.FormatComplex(v.Complex(), 'g', -1, 128))
	case reflect.String:
		s := v.String()
		if s == "" {
			s = `""`
		}
		p.b.WriteString(s)
	case reflect.Pointer:
		if v.IsNil() {
			p.b.WriteString("<nil>")
			return
		}
		if p.seen[v.Pointer()] {
			p.b.WriteString("<cycle>")
			return
		}
		p.seen[v.Pointer()] = true
		p.b.WriteByte('&')
		p.value(v.Elem(), depth+1)
		delete(p.seen, v.Pointer())
	case reflect.Interface:
		if v.IsNil() {
			p.b.WriteString("<nil>")
			return
		}
		p.value(v.Elem(), depth)
	case reflect.Slice, reflect.Array:
		if v.Kind() == reflect.Slice && v.IsNil() {
			p.b.WriteString("[]")
			return
		}
		p.b.WriteByte('[')
		p.items(v.Len(), func(i int) { p.value(v.Index(i), depth+1) })
		p.b.WriteByte(']')
	case reflect.Map:
		es := sortedKeys(v)
		p.b.WriteString("map[")
		p.items(len(es), func(i int) {
			p.b.WriteString(es[i].name)
			p.b.WriteByte(':')
			p.value(v.MapIndex(es[i].key), depth+1)
		})
		p.b.WriteByte(']')
	case reflect.Struct:
		t := v.Type()
		p.b.WriteByte('{')
		for i := 0; i < t.NumField(); i++ {
			if i > 0 {
				p.b.WriteByte(' ')
			}
			p.b.WriteString(t.Field(i).Name)
			p.b.WriteByte(':')
			p.value(v.Field(i), depth+1)
		}
		p.b.WriteByte('}')
	case reflect.Func, reflect.Chan, reflect.UnsafePointer:
		if v.IsNil() {
			p.b.WriteString("<nil>")
		} else {
			p.b.WriteString(v.Kind().String())
		}
	default:
		p.b.WriteString(v.Kind().String())
	}
}

// items prints n elements separated by spaces; folded, a long collection
// shows its first and last elements and how many it leaves out.
func (p *printer) items(n int, item func(i int)) {
	for i := 0; i < n; i++ {
		if p.full() {
			p.b.WriteString(" … (truncated)")
			return
		}
		if p.fold && n > foldItems && i == foldHead {
			fmt.Fprintf(&p.b, " …%d more…", n-foldHead-foldTail)
			i = n - foldTail - 1
			continue
		}
		if i > 0 {
			p.b.WriteByte(' ')
		}
		item(i)
	}
}

// safeString calls String, which a system wrote and which may panic on a
// value it does not expect.
func safeString(s fmt.Stringer) (out string) {
	defer func() {
		if r := recover(); r != nil {
			out = fmt.Sprintf("<String panicked: %v>", r)
		}
	}()
	return s.String()
}

// Changed returns the names of the fields whose value differs between two
// states of the same actor. An actor that started, stopped or restarted
// into a different state has every field changed.
func Changed(before, after State) map[string]bool {
	out := map[string]bool{}
	if before.Running != after.Running {
		for _, f := range after.Fields {
			out[f.Name] = true
		}
		return out
	}
	for _, f := range after.Fields {
		if g, ok := before.Field(f.Name); !ok || g.Full != f.Full {
			out[f.Name] = true
		}
	}
	return out
}
