package minimize_test

import (
	"context"
	"fmt"

	"github.com/demi-project/demi/examples"
	"github.com/demi-project/demi/minimize"
	"github.com/demi-project/demi/record"
)

// Minimize the shipped trace of the Spark bug SPARK-9256 (a repeated
// RegisterApplication makes the master persist the application's records
// again) with the default step budget, and print what each pass that paid
// removed: the result is the same on any machine and for any Workers.
func ExampleRun() {
	tr, sys, err := record.ReadFile("../examples/traces/spark-9256.trace", examples.Catalog())
	if err != nil {
		panic(err)
	}
	res, err := minimize.Run(context.Background(), sys, tr, minimize.Config{Workers: 1})
	if err != nil {
		panic(err)
	}
	h := res.Trace.Header
	fmt.Printf("%d (E:%d) -> %d (E:%d): %s\n", tr.Header.Deliveries, tr.Header.Externals, h.Deliveries, h.Externals, h.Violation.Fingerprint)
	for _, p := range res.Passes {
		if p.Successes > 0 {
			fmt.Printf("%s removed %d\n", p.Name, p.Removed)
		}
	}
	// Output:
	// 1009 (E:15) -> 4 (E:3): panic: IllegalStateException: persisted record already exists @ spark.engine.create
	// provenance removed 2
	// ddmin-externals removed 991
	// ddmin-externals-wild removed 24
}
