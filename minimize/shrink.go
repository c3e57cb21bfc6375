package minimize

import (
	"context"
	"fmt"
	"maps"
	"reflect"
	"slices"

	"github.com/demi-project/demi/dpor"
	"github.com/demi-project/demi/fingerprint"
	"github.com/demi-project/demi/record"
)

// shrinkContents shrinks the contents of external messages (the paper's Observation #5): the group edits (groupEdits),
// then for every message not shared by a group the renames of the values it first holds (rename.go).
func (m *minimizer) shrinkContents(ctx context.Context) error {
	return m.greedy(ctx, dpor.TFB, m.cfg.MaxSchedules, func(base *record.Trace) []edit {
		es, groups := m.groupEdits(base, false)
		rn := newRenamer(base)
		for i, e := range base.Events {
			if e.Kind != record.Send || e.Msg == nil {
				continue
			}
			if _, ok := e.Msg.(record.Shrinkable); ok && len(groups[m.fp.Of(e.Msg).Full]) > 1 {
				continue
			}
			for _, r := range rn.renamesAt(i) {
				es = append(es, replacement(r))
			}
		}
		return es
	})
}

// groupEdits lists the edits that remove one component (componentOrder) from every message of a group of
// identical Shrinkable ones (one full fingerprint; of two or more if several), and returns the groups.
// Under keepNamed (the beam's first start), a group keeps the actors the violation names.
func (m *minimizer) groupEdits(base *record.Trace, several bool) ([]edit, map[uint64][]int) {
	var es []edit
	groups := map[uint64][]int{}
	var order []uint64
	for i, e := range base.Events {
		if e.Kind != record.Send || e.Msg == nil {
			continue
		}
		f := m.fp.Of(e.Msg).Full
		if _, ok := groups[f]; !ok {
			order = append(order, f)
		}
		groups[f] = append(groups[f], i)
	}
	for _, f := range order {
		g := groups[f]
		sh, ok := base.Events[g[0]].Msg.(record.Shrinkable)
		if !ok || several && len(g) < 2 {
			continue
		}
		// A message sent to several actors keeps more than half the input's
		// most components: a smaller configuration changes quorum arithmetic.
		if len(g) > 1 && sh.Components()-1 <= m.maxComponents[record.TypeName(sh)]/2 {
			continue
		}
		order, named := m.componentOrder(base, sh)
		if len(g) == 1 || !m.keepNamed {
			order = append(order, named...)
		}
		for _, c := range order {
			repl := map[int]record.Message{}
			for _, i := range g {
				repl[i] = base.Events[i].Msg.(record.Shrinkable).WithoutComponent(c)
			}
			es = append(es, replacement(repl))
		}
	}
	return es, groups
}

// componentOrder lists the components of sh from the last: those whose removal
// keeps every actor the violation names, and those whose removal drops one.
func (m *minimizer) componentOrder(base *record.Trace, sh record.Shrinkable) (unnamed, named []int) {
	var actors []record.ActorID
	if v := base.Header.Violation; v != nil {
		actors = record.NamedActors(v.Fingerprint+" "+v.Detail, m.sys.Members(m.resolved))
	}
	before := record.NamedActors(fmt.Sprint(sh), actors)
	for c := sh.Components() - 1; c >= 0; c-- {
		if len(record.NamedActors(fmt.Sprint(sh.WithoutComponent(c)), before)) < len(before) {
			named = append(named, c)
		} else {
			unnamed = append(unnamed, c)
		}
	}
	return unnamed, named
}

// replacement replaces the messages of the sends at repl's indices and
// their deliveries', every later delivery a wildcard.
func replacement(repl map[int]record.Message) edit {
	first := slices.Min(slices.Collect(maps.Keys(repl)))
	return func(fp *fingerprint.Fingerprinter, bp dpor.Plan) dpor.Plan {
		p := slices.Clone(bp)
		for i, st := range p {
			if msg, ok := repl[i]; ok && st.Event.Kind == record.Send {
				p[i].Event.Msg = msg
			}
			if i > first && st.Event.Kind == record.Deliver {
				p[i].Wildcard = true
			}
			if msg, ok := repl[st.Event.Cause]; ok && st.Event.Kind == record.Deliver && st.Event.Cause >= 0 {
				p[i].Event.Msg, p[i].FP = msg, fp.Of(msg)
			}
		}
		return p
	}
}

// weight measures the contents of a trace's external messages (lengths,
// magnitudes, components), to order traces of equal length.
func weight(t *record.Trace) uint64 {
	var w uint64
	for _, e := range t.Events {
		if e.Kind == record.Send && e.Msg != nil {
			if sh, ok := e.Msg.(record.Shrinkable); ok {
				w += uint64(sh.Components())
			}
			w += valueWeight(reflect.ValueOf(e.Msg), 0)
		}
	}
	return w
}

func valueWeight(v reflect.Value, depth int) uint64 {
	if depth > maxValueDepth || !v.IsValid() {
		return 0
	}
	switch v.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		x := v.Int()
		return uint64(min(max(x, -x), 1<<20)) // |x|, at most 2^20
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return min(v.Uint(), 1<<20)
	case reflect.String:
		return uint64(v.Len())
	case reflect.Slice, reflect.Array:
		w := uint64(v.Len())
		for k := 0; k < v.Len(); k++ {
			w += valueWeight(v.Index(k), depth+1)
		}
		return w
	case reflect.Struct:
		var w uint64
		for f := 0; f < v.NumField(); f++ {
			w += valueWeight(v.Field(f), depth+1)
		}
		return w
	case reflect.Pointer:
		if v.IsNil() {
			return 0
		}
		return valueWeight(v.Elem(), depth+1)
	}
	return 0
}
