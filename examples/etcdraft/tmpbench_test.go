package etcdraft_test

import (
	"testing"

	"github.com/demi-project/demi/record"
)

func BenchmarkTmpDeepCopy(b *testing.B) {
	tr, sys := read(b, "etcdraft-leader-local-read.trace")
	sim, err := tr.Setup(sys).NewSim()
	if err != nil {
		b.Fatal(err)
	}
	for _, e := range tr.Events[:len(tr.Events)/2] {
		if e.Kind == record.Deliver {
			err = sim.Deliver(e.ID)
		} else {
			err = sim.Apply(e)
		}
		if err != nil {
			b.Fatal(err)
		}
	}
	m := sim.View().StateOf(sim.Members()[0]).Actor.(record.DeepCopier)
	b.ReportAllocs()
	for b.Loop() {
		m.DeepCopy()
	}
}
