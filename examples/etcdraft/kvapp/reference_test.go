package kvapp

import (
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/demi-project/demi/record"
)

// checkReadsReference is CheckReads as first written: each key's writes,
// bounds and completed writes found by scanning every history again. The
// indexed CheckReads must give exactly its results.
func checkReadsReference(ms []record.ActorID, hs [][]Op, logs [][]string) *record.Violation {
	type served struct {
		op     Op
		member record.ActorID
	}
	var reads []served
	for i, id := range ms {
		for _, op := range hs[i] {
			if op.Read {
				reads = append(reads, served{op, id})
			}
		}
	}
	if len(reads) == 0 {
		return nil
	}
	type kvWrite struct {
		index  uint64
		value  string
		absent bool
	}
	writes := map[string][]kvWrite{}
	for _, r := range reads {
		writes[r.op.Key] = []kvWrite{{absent: true}}
	}
	n := 0
	for _, l := range logs {
		n = max(n, len(l))
	}
	for i := range n {
		data := ""
		for _, l := range logs {
			if i < len(l) && l[i] != "" {
				data = l[i]
				break
			}
		}
		verb, rest, ok := strings.Cut(data, " ")
		if !ok {
			continue
		}
		key, value, set := strings.Cut(rest, " ")
		ws, read := writes[key]
		switch {
		case !read:
		case verb == "set" && set:
			writes[key] = append(ws, kvWrite{index: uint64(i), value: value})
		case verb == "del" && !set:
			writes[key] = append(ws, kvWrite{index: uint64(i), absent: true})
		}
	}
	type keyInfo struct {
		bound []int
		done  []Op
	}
	info := map[string]*keyInfo{}
	for key, ws := range writes {
		ki := &keyInfo{bound: make([]int, len(ws))}
		for j, w := range ws[1:] {
			first := math.MaxInt
			for _, h := range hs {
				for _, p := range h {
					if !p.Read && p.Key == key && p.Absent == w.absent && (w.absent || p.Value == w.value) {
						first = min(first, p.Inv)
					}
				}
			}
			ki.bound[j+1] = max(ki.bound[j], first)
		}
		for _, h := range hs {
			for _, p := range h {
				if !p.Read && p.Key == key && p.Resp > 0 {
					ki.done = append(ki.done, p)
				}
			}
		}
		info[key] = ki
	}
	type window struct{ lo, hi uint64 }
	places := make([]window, len(reads))
	for i, r := range reads {
		ws, ki := writes[r.op.Key], info[r.op.Key]
		hi := uint64(math.MaxUint64)
		for j := 1; j < len(ws); j++ {
			if ki.bound[j] >= r.op.Resp {
				hi = ws[j].index
				break
			}
		}
		lo := uint64(0)
		for _, p := range ki.done {
			if p.Resp < r.op.Inv {
				lo = max(lo, p.Index)
			}
		}
		first, last, ok := uint64(0), uint64(0), false
		for _, w := range ws {
			if w.index >= lo && w.index < hi && w.absent == r.op.Absent && (w.absent || w.value == r.op.Value) {
				if !ok {
					first = w.index
				}
				last, ok = w.index, true
			}
		}
		if !ok {
			why := "the initial state"
			if lo > 0 {
				why = fmt.Sprintf("the write at log index %d, completed before the read began", lo)
			}
			if hi < math.MaxUint64 {
				why += fmt.Sprintf(", or a later one before index %d", hi)
			} else {
				why += ", or a later one"
			}
			return &record.Violation{
				Fingerprint: fmt.Sprintf("%s(%s)", Linearizability, r.member),
				Detail: fmt.Sprintf("%s answered a read of %s (events %d-%d) with %s; a linearizable read returns the value of %s",
					r.member, r.op.Key, r.op.Inv, r.op.Resp, describeRead(r.op), why),
			}
		}
		places[i] = window{first, last}
	}
	for i, a := range reads {
		for j, b := range reads {
			if a.op.Key == b.op.Key && a.op.Resp < b.op.Inv && places[i].lo > places[j].hi {
				return &record.Violation{
					Fingerprint: fmt.Sprintf("%s(%s)", Linearizability, b.member),
					Detail: fmt.Sprintf("%s answered a read of %s (events %d-%d) with %s after %s had answered one (events %d-%d) with a later write's %s",
						b.member, b.op.Key, b.op.Inv, b.op.Resp, describeRead(b.op), a.member, a.op.Inv, a.op.Resp, describeRead(a.op)),
				}
			}
		}
	}
	return nil
}

// history is a random run of a replicated key-value store: members serve
// Puts (committed in log order, applied by the first member at once and
// by the others later, and answered a little later) and Gets (answered
// from the state at some event between the Get's arrival and its answer),
// so that the history is linearizable unless loose is set (a Get may then
// answer from the state at any event since the commit of the last write
// of its key answered before it arrived: no read is stale, but one may be
// older than a read that completed before it began) or noise is added
// (perturb). Values come from a small range when collide is set, so
// that several writes share a value; some writes are deletes, and some
// Puts are never committed or never answered.
type history struct {
	ms   []record.ActorID
	hs   [][]Op
	logs [][]string
}

func randomHistory(r *rand.Rand, members, keys, events int, collide, loose bool) history {
	h := history{ms: make([]record.ActorID, members), hs: make([][]Op, members), logs: make([][]string, members)}
	for i := range members {
		h.ms[i] = record.ActorID("etcd-" + strconv.Itoa(i+1))
	}
	// A Put waiting for its commit and then for its answer (its op in the
	// member's history, committed at event commit), or a Get for its
	// answer, due at event at.
	type put struct{ member, op, at, commit int }
	type get struct {
		member, inv, at, since int
		key                    string
	}
	since := map[string]int{} // by key: the commit of the last write answered
	var puts, answers []put
	var gets []get
	log := []string{"", ""} // committed data; a leader's empty entry at 1
	kv := map[string]string{}
	var states []map[string]string // states[e-1]: the store after event e
	for e := 1; e <= events; e++ {
		answers = slices.DeleteFunc(answers, func(p put) bool {
			if p.at == e {
				op := &h.hs[p.member][p.op]
				op.Resp = e
				since[op.Key] = max(since[op.Key], p.commit)
			}
			return p.at == e
		})
		puts = slices.DeleteFunc(puts, func(p put) bool {
			if p.at != e {
				return false
			}
			op := &h.hs[p.member][p.op]
			op.Index = uint64(len(log))
			log = append(log, string(Command(op.Key, op.Value)))
			if op.Absent {
				delete(kv, op.Key)
			} else {
				kv[op.Key] = op.Value
			}
			if r.IntN(10) > 0 {
				answers = append(answers, put{p.member, p.op, e + 1 + r.IntN(8), e})
			}
			return true
		})
		states = append(states, maps.Clone(kv))
		gets = slices.DeleteFunc(gets, func(g get) bool {
			if g.at != e {
				return false
			}
			from := g.inv
			if loose {
				from = max(1, g.since)
			}
			at := from + r.IntN(e-from+1)
			v, ok := states[at-1][g.key]
			h.hs[g.member] = append(h.hs[g.member], Op{Read: true, Key: g.key, Value: v, Absent: !ok, Inv: g.inv, Resp: e})
			return true
		})
		m, key := r.IntN(members), fmt.Sprintf("k%d", r.IntN(keys))
		switch r.IntN(4) {
		case 0:
			v := strconv.Itoa(1 + r.IntN(1000))
			if collide {
				v = strconv.Itoa(1 + r.IntN(3))
			}
			if r.IntN(8) == 0 {
				v = ""
			}
			h.hs[m] = append(h.hs[m], Op{Key: key, Value: v, Absent: v == "", Inv: e})
			if r.IntN(10) > 0 {
				puts = append(puts, put{m, len(h.hs[m]) - 1, e + 1 + r.IntN(6), 0})
			}
		case 1:
			gets = append(gets, get{m, e, e + r.IntN(4), since[key], key})
		}
	}
	// The first member applied the whole log, the others a prefix.
	for i := range members {
		n := len(log)
		if i > 0 {
			n = r.IntN(len(log) + 1)
		}
		h.logs[i] = slices.Clone(log[:n])
	}
	return h
}

// perturb adds noise to a history: a read's value or bounds changed, an
// operation's events shifted, a log entry dropped, so that some histories
// violate linearizability, in either way.
func perturb(r *rand.Rand, h history) {
	for range r.IntN(3) {
		m := r.IntN(len(h.hs))
		if len(h.hs[m]) == 0 {
			continue
		}
		op := &h.hs[m][r.IntN(len(h.hs[m]))]
		switch r.IntN(6) {
		case 0:
			op.Value, op.Absent = strconv.Itoa(1+r.IntN(3)), false
		case 1:
			op.Value, op.Absent = "", true
		case 2:
			op.Inv += r.IntN(10) - 5
		case 3:
			op.Resp += r.IntN(10) - 5
		case 4:
			op.Index += uint64(r.IntN(3))
		case 5:
			if l := h.logs[0]; len(l) > 2 {
				l[2+r.IntN(len(l)-2)] = []string{"", "set k0", "del k1 x", "set k2 7", "junk"}[r.IntN(5)]
			}
		}
	}
}

func TestCheckReadsMatchesReference(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	found := map[string]int{} // by kind of violation, "" for none
	for i := range 20000 {
		h := randomHistory(r, 1+r.IntN(3), 1+r.IntN(3), 5+r.IntN(60), r.IntN(2) == 0, r.IntN(4) > 0)
		if i%4 > 0 {
			perturb(r, h)
		}
		want := checkReadsReference(h.ms, h.hs, h.logs)
		got := CheckReads(h.ms, h.hs, h.logs)
		require.Equal(t, want, got, "history %d: %+v", i, h)
		kind := ""
		if want != nil {
			kind = "no place"
			if strings.Contains(want.Detail, "had answered one") {
				kind = "back in time"
			}
		}
		found[kind]++
	}
	// Linearizable histories are common, and so is each kind of violation:
	// a read with no place in the write order, and one older than a read
	// that completed before it began.
	t.Log(found)
	for _, kind := range []string{"", "no place", "back in time"} {
		require.Greater(t, found[kind], 500, "%q: %v", kind, found)
	}
}

// benchHistory returns a linearizable history of three members and four
// keys over the given number of events: 60 gives one like those the
// invariant sees when minimizing a leader-local-read trace (a few dozen
// operations, a few reads), 600 a few hundred operations.
func benchHistory(events int) history {
	r := rand.New(rand.NewPCG(7, 8))
	for {
		h := randomHistory(r, 3, 4, events, false, false)
		if checkReadsReference(h.ms, h.hs, h.logs) == nil {
			return h
		}
	}
}

func BenchmarkCheckReads(b *testing.B) {
	for _, events := range []int{60, 600} {
		h := benchHistory(events)
		ops := 0
		for _, hist := range h.hs {
			ops += len(hist)
		}
		b.Run(fmt.Sprintf("ops=%d", ops), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if CheckReads(h.ms, h.hs, h.logs) != nil {
					b.Fatal("violation")
				}
			}
		})
	}
}
