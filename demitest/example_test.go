package demitest_test

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/demi-project/demi/demitest"
	"github.com/demi-project/demi/examples/tokenring"
	"github.com/demi-project/demi/record"
)

// printT stands in for the *testing.T of a test: it prints what the test
// would report as failures, with the kept traces' directory shown as
// testdata/demi/TestRing.
type printT struct {
	testing.TB
	dir string
}

func (p *printT) Helper()             {}
func (p *printT) Name() string        { return "TestRing" }
func (p *printT) Logf(string, ...any) {}
func (p *printT) Errorf(f string, a ...any) {
	lines := strings.Split(fmt.Sprintf(f, a...), "\n")
	for i, l := range lines {
		where := "testdata/demi/TestRing" // as the package's test sees it
		if strings.Contains(l, "go run ") {
			where = "demitest/testdata/demi/TestRing" // from the module root
		}
		lines[i] = strings.ReplaceAll(l, p.dir, where)
	}
	fmt.Printf("--- FAIL: TestRing\n%s", strings.Join(lines, "\n"))
}

// A test of the token ring with its restore-token bug switched on. In a
// test file it is just
//
//	func TestRing(t *testing.T) {
//		demitest.Check(t, tokenring.System(), demitest.Bugs("restore-token"),
//			demitest.Fuzz(record.FuzzConfig{MaxSteps: 200}))
//	}
//
// and `go test` prints the failure below, keeping seed-N.trace and
// seed-N.min.trace under testdata/demi/TestRing/. With the switch off
// (the bug fixed), the same test passes and logs that the kept traces no
// longer reach the violation.
func ExampleCheck() {
	dir, err := os.MkdirTemp("", "demitest")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	t := &printT{dir: dir}
	demitest.Check(t, tokenring.System(), demitest.Bugs("restore-token"),
		demitest.Fuzz(record.FuzzConfig{MaxSteps: 200}), demitest.Dir(dir))
	// Output:
	// --- FAIL: TestRing
	// demi: fuzzing tokenring found a violation at seed 1 (run 1)
	// violation two-tokens
	//   token held by n1 and n3
	// failing trace:   testdata/demi/TestRing/seed-1.trace (4 deliveries, 29 externals)
	// minimized trace: testdata/demi/TestRing/seed-1.min.trace (3 deliveries, 4 externals)
	//
	// testdata/demi/TestRing/seed-1.min.trace  system tokenring (restore-token)  seed 1  network fifo
	// 3 deliveries, 4 externals
	// ┌──────┬─────────┬──────┬────┬────────────────────────┐
	// │ STEP │ KIND    │ FROM │ TO │ MESSAGE                │
	// ├──────┼─────────┼──────┼────┼────────────────────────┤
	// │ 0    │ start   │      │ n1 │                        │
	// │ 1    │ send    │ ext  │ n1 │ Inject{Serial:0}       │
	// │ 2    │ deliver │ ext  │ n1 │ Inject{Serial:0}       │
	// │ 3    │ start   │      │ n3 │                        │
	// │ 4    │ timer   │ n1   │ n1 │ Pass{}                 │
	// │ 5    │ restart │      │ n1 │                        │
	// │ 6    │ deliver │ n1   │ n3 │ Token{Serial:0 Hops:1} │
	// └──────┴─────────┴──────┴────┴────────────────────────┘
	// violation after step 6: two-tokens
	//   token held by n1 and n3
	//
	// from the module root:
	//   replay:  go run ./cmd/demi replay demitest/testdata/demi/TestRing/seed-1.min.trace
	//   step:    go run ./cmd/demi replay --step demitest/testdata/demi/TestRing/seed-1.min.trace
	//   show:    go run ./cmd/demi show demitest/testdata/demi/TestRing/seed-1.min.trace
	//   re-run:  go test ./demitest -run '^TestRing$' -demi.seed=1 -demi.runs=1
}
