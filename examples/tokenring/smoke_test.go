package tokenring_test

import (
	"context"
	"testing"

	"github.com/demi-project/demi/examples/tokenring"
	"github.com/demi-project/demi/record"
	"github.com/demi-project/demi/replay"
	"bytes"
)

func TestSmoke(t *testing.T) {
	sys := tokenring.System()
	for _, bug := range []string{"restore-token", "panic-on-lap", ""} {
		opts := record.Options{}
		if bug != "" { opts[bug] = "true" }
		tr, n, err := record.Search(context.Background(), sys, opts, record.SearchConfig{FuzzConfig: record.FuzzConfig{Seed: 1, MaxSteps: 500, MaxExternals: 30}, Runs: 20})
		if err != nil { t.Fatal(err) }
		if tr == nil { t.Logf("%s: no violation in %d runs", bug, n); continue }
		t.Logf("%s: %v after %d runs, %d deliveries %d externals", bug, tr.Header.Violation, n, tr.Header.Deliveries, tr.Header.Externals)
		var buf bytes.Buffer
		if err := tr.Encode(&buf); err != nil { t.Fatal(err) }
		t.Logf("size %d bytes", buf.Len())
		tr2, sys2, err := record.Decode(&buf, record.NewCatalog(sys))
		if err != nil { t.Fatal(err) }
		res, err := replay.Run(context.Background(), sys2, tr2)
		if err != nil { t.Fatal(err) }
		t.Logf("replay reproduced=%v div=%v v=%v", res.Reproduced, res.Divergence, res.Violation)
		if !res.Reproduced { t.Fatal("not reproduced") }
		for i, e := range tr2.Events { if i < 12 { t.Log(e.String()) } }
	}
}
