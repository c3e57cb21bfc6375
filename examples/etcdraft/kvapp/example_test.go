package kvapp_test

import (
	"fmt"

	"github.com/demi-project/demi/examples/etcdraft/kvapp"
	"github.com/demi-project/demi/record"
)

// Entries carry commands; applied in log order they build the store, whose
// encoding is a snapshot's data.
func ExampleStore() {
	kv := kvapp.Store{}
	for _, data := range [][]byte{kvapp.Command("k", "1"), kvapp.Command("j", "2"), {}, kvapp.Command("k", "")} {
		kv.Apply(data) // the empty entry a new leader appends does nothing
	}
	fmt.Printf("%q\n", kv.Encode())
	fmt.Println(kvapp.Decode(kv.Encode()))
	// Output:
	// "j=2\n"
	// map[j:2]
}

// A read that returns a value overwritten before it began is not
// linearizable: the write of 2 (log index 3) completed at event 25, and
// etcd-2's read of k, from event 26 to 27, returned 1.
func ExampleCheckReads() {
	writes := []kvapp.Op{
		{Key: "k", Value: "1", Inv: 10, Resp: 15, Index: 2},
		{Key: "k", Value: "2", Inv: 20, Resp: 25, Index: 3},
	}
	reads := []kvapp.Op{{Read: true, Key: "k", Value: "1", Inv: 26, Resp: 27}}
	logs := [][]string{{"", "", "set k 1", "set k 2"}, {"", "", "set k 1", "set k 2"}}
	v := kvapp.CheckReads([]record.ActorID{"etcd-1", "etcd-2"}, [][]kvapp.Op{writes, reads}, logs)
	fmt.Println(v.Fingerprint)
	// Output: Linearizability(etcd-2)
}
