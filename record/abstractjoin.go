package record

import (
	"slices"
	"strings"
)

// Helpers for a system's own abstraction (System.Abstract), which maps a
// run onto a few bounded variables per member, as ModelFuzz maps etcd raft
// onto its TLA+ model's.

// AbstractBelow is how far a member's value is below the largest among
// the members (d), as one digit capped at hi: "one term behind" is kept,
// "117 terms behind" reads as hi. A negative d reads as 0.
func AbstractBelow[T ~int | ~int32 | ~int64 | ~uint | ~uint32 | ~uint64](d, hi T) byte {
	if d < 0 {
		d = 0
	}
	return byte('0' + min(d, hi))
}

// AbstractMultiset joins the abstract states of interchangeable members
// (a system's symmetry) into one: the sorted multiset of per, each state
// counted at most maxCount times, so that "several followers in step" is
// one situation whether they are two or eight and the number of abstract
// states stays bounded as the cluster grows. It sorts per in place.
func AbstractMultiset(per []string, maxCount int) string {
	slices.Sort(per)
	var b strings.Builder
	n := 0
	for i, p := range per {
		if i > 0 && p == per[i-1] {
			if n++; n > maxCount {
				continue
			}
			b.WriteByte('+')
			continue
		}
		n = 1
		b.WriteByte('|')
		b.WriteString(p)
	}
	return b.String()
}
