package minimize

import (
	"context"
	"fmt"
	"testing"

	"github.com/demi-project/demi/dpor"
	"github.com/demi-project/demi/fingerprint"
	"github.com/demi-project/demi/record"
)

func TestZZ10184(t *testing.T) {
	tr, m, c := raftMinimizer(t, "/tmp/r58a/a10184.trace")
	bp := dpor.FromEvents(c.Fingerprinter(), tr.Events)
	for _, form := range []roundForm{thinRound, fullRound} {
		p := swapRound(23, []int{27}, "raft-3", "raft-2", form)(c.Fingerprinter(), bp)
		r := -1
		for j, st := range p {
			if st.Event.Kind == record.Restart && st.Event.Actor == "raft-2" {
				r = j
			}
		}
		for at := r + 1; at < len(p); at++ {
			q := append(dpor.Plan{}, p[:r]...)
			q = append(q, p[r+1:at+1]...)
			q = append(q, p[r])
			q = append(q, p[at+1:]...)
			for k := r; k < len(q); k++ {
				if q[k].Event.Kind == record.Deliver {
					q[k].Wildcard = true
				}
			}
			nt, _, err := m.tryMove(context.Background(), c, tr, q)
			if err != nil {
				t.Fatal(err)
			}
			s := "nil"
			if nt != nil {
				s = fmt.Sprint(nt.Header.Deliveries, nt.Header.Externals)
			}
			fmt.Println(form, "restart after", at, p[at].Event.Kind, p[at].Event.From, p[at].Event.To, "->", s)
		}
	}
	_ = fingerprint.New
}
