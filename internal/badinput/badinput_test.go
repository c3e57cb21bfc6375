// Package badinput_test is demi's bad-input suite: it generates hostile
// inputs (truncated and bit-flipped traces, header options at and beyond
// every bound every shipped system declares, special files, outputs that
// name an input) and runs every command on them as a user would, as a
// separate process (replay, replay --step, show in its forms, minimize,
// check, report, explain, optimal, fuzz): this test binary, which acts as the demi command when
// DEMI_BADINPUT_CHILD is set, so nothing is built. For every case it
// asserts what issue 27 asks of bad input: exit 2 and one line (or, for an
// input that may still be valid, a clean exit 0, 1 or 2), no panic or
// stack trace, an answer within the case's timeout, at most 256 MB of
// memory, the inputs unchanged and no temporary or partial file left.
//
// The cases are drawn from a seeded random source; DEMI_BADINPUT_SEED
// draws others (the default is fixed, so a failure reproduces), and
// DEMI_BADINPUT_N scales the number of random cases.
package badinput_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/demi-project/demi/cli"
	"github.com/demi-project/demi/examples"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/vmihailenco/msgpack/v5"
)

const childEnv = "DEMI_BADINPUT_CHILD"

func TestMain(m *testing.M) {
	if os.Getenv(childEnv) == "1" {
		cli.Main(examples.Catalog())
		return
	}
	// The cases are processes that mostly wait: run more of them at once
	// than there are cores, unless -parallel says otherwise.
	flag.Parse()
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == "test.parallel" })
	if !set {
		_ = flag.Set("test.parallel", "8")
	}
	os.Exit(m.Run())
}

// expect is what a case must end in.
type expect int

const (
	exitTwo expect = iota // exit 2 and one line naming the problem
	clean                 // exit 0, 1 or 2; when not 0, one line
)

type hostileCase struct {
	name    string
	args    []string
	want    expect
	contain string   // a substring of the error line (exitTwo)
	inputs  []string // files that must be unchanged afterwards
	dir     string   // where no temporary or partial file may be left
	noFile  []string // outputs that must not exist afterwards
}

const (
	caseTimeout = 20 * time.Second
	maxRSSKB    = 256 << 10
)

// suite holds what the cases share: the seeded source and the shipped
// traces by system.
type suite struct {
	t      *testing.T
	rng    *rand.Rand
	n      int
	traces map[string]string // system -> a shipped minimized trace
	cases  []hostileCase
}

func newSuite(t *testing.T) *suite {
	seed := uint64(27)
	if s := os.Getenv("DEMI_BADINPUT_SEED"); s != "" {
		v, err := strconv.ParseUint(s, 10, 64)
		require.NoError(t, err)
		seed = v
	}
	n := 3
	if s := os.Getenv("DEMI_BADINPUT_N"); s != "" {
		v, err := strconv.Atoi(s)
		require.NoError(t, err)
		n = v
	}
	t.Logf("seed %d, %d random cases per kind (DEMI_BADINPUT_SEED, DEMI_BADINPUT_N)", seed, n)
	s := &suite{t: t, rng: rand.New(rand.NewPCG(seed, 27)), n: n, traces: map[string]string{}}
	mins, err := filepath.Glob("../../examples/traces/*.min.trace")
	require.NoError(t, err)
	slices.Sort(mins)
	for _, p := range mins {
		sys := strings.SplitN(filepath.Base(p), "-", 2)[0]
		if _, ok := s.traces[sys]; !ok {
			s.traces[sys] = p
		}
	}
	require.NotEmpty(t, s.traces)
	return s
}

// copyIn copies a shipped trace into dir (so that it is an input the case
// may not change) and returns its path.
func (s *suite) copyIn(dir, src, name string, data []byte) string {
	if data == nil {
		var err error
		data, err = os.ReadFile(src)
		require.NoError(s.t, err)
	}
	p := filepath.Join(dir, name)
	require.NoError(s.t, os.WriteFile(p, data, 0o644))
	return p
}

// commands are every command that reads a trace, with the flags that keep
// a run that does start short; out is the output file of those that write.
func commands(in, out string) [][]string {
	return [][]string{
		{"replay", in},
		{"replay", "--step", in},
		{"show", in},
		{"show", "--json", in},
		{"show", "--rounds", in},
		{"show", "--format", "markdown", in},
		{"minimize", in, "-o", out, "--budget", "2s", "-j", "1"},
		{"check", in, "-o", out, "--budget", "2s", "--schedules", "20"},
		{"report", in, "-o", out},
		{"explain", in},
		{"optimal", in, "-o", out, "--budget", "2s", "--max-states", "2000", "-j", "1"},
	}
}

// pick returns k of the commands, drawn at random.
func (s *suite) pick(in, out string, k int) [][]string {
	all := commands(in, out)
	s.rng.Shuffle(len(all), func(i, j int) { all[i], all[j] = all[j], all[i] })
	return all[:k]
}

func (s *suite) add(c hostileCase) { s.cases = append(s.cases, c) }

// header decodes a trace file's header and returns it with the bytes after it.
func header(t *testing.T, path string) (map[string]any, []byte) {
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	dec := msgpack.NewDecoder(bytes.NewReader(data))
	var h map[string]any
	require.NoError(t, dec.Decode(&h))
	return h, data[len(data)-dec.Buffered().(*bytes.Reader).Len():]
}

func withHeader(t *testing.T, h map[string]any, rest []byte) []byte {
	head, err := msgpack.Marshal(h)
	require.NoError(t, err)
	return append(head, rest...)
}

// truncations and flips of every system's shipped trace.
func (s *suite) corrupted() {
	for sys, src := range s.traces {
		data, err := os.ReadFile(src)
		require.NoError(s.t, err)
		for i := range s.n {
			dir := s.t.TempDir()
			cut := s.rng.IntN(len(data))
			in := s.copyIn(dir, "", fmt.Sprintf("cut%d.trace", i), data[:cut])
			out := filepath.Join(dir, "out")
			for _, args := range s.pick(in, out, 2) {
				s.add(hostileCase{name: fmt.Sprintf("%s truncated at %d: %s", sys, cut, args[0]), args: args, want: exitTwo,
					inputs: []string{in}, dir: dir, noFile: []string{out}})
			}
			flipped := slices.Clone(data)
			for range 1 + s.rng.IntN(4) {
				flipped[s.rng.IntN(len(flipped))] ^= byte(1 << s.rng.IntN(8))
			}
			in = s.copyIn(dir, "", fmt.Sprintf("flip%d.trace", i), flipped)
			for _, args := range s.pick(in, out, 2) {
				s.add(hostileCase{name: fmt.Sprintf("%s flipped: %s", sys, args[0]), args: args, want: clean, inputs: []string{in}, dir: dir})
			}
		}
	}
}

// extremes sets every integer option of every system in the catalog, in
// a trace header and with --opt, beyond its bounds (exit 2, naming it) and
// at them (a clean end, within memory and time).
func (s *suite) extremes() {
	base := s.traces["raft"]
	for _, sys := range examples.Catalog().Systems() {
		src, shipped := s.traces[sys.Name]
		if !shipped {
			src = base
		}
		h0, rest := header(s.t, src)
		for _, o := range sys.Options {
			if !o.Integer() {
				continue
			}
			require.True(s.t, o.Bounded(), "%s option %s", sys.Name, o.Name)
			bad := []string{strconv.Itoa(o.Max + 1), strconv.Itoa(o.Min - 1), "9223372036854775807", "-9223372036854775808",
				"99999999999999999999", "1e9", "", " 3", "0x10"}
			for _, v := range []string{bad[0], bad[1+s.rng.IntN(len(bad)-1)]} {
				dir := s.t.TempDir()
				h := cloneHeader(h0)
				h["system"] = sys.Name
				h["options"] = []any{map[string]any{"name": o.Name, "value": v}}
				in := s.copyIn(dir, "", "x.trace", withHeader(s.t, h, rest))
				out := filepath.Join(dir, "out")
				for _, args := range s.pick(in, out, 1) {
					s.add(hostileCase{name: fmt.Sprintf("header %s %s=%q: %s", sys.Name, o.Name, v, args[0]), args: args, want: exitTwo,
						contain: "option " + o.Name, inputs: []string{in}, dir: dir, noFile: []string{out}})
				}
				s.add(hostileCase{name: fmt.Sprintf("fuzz %s --opt %s=%q", sys.Name, o.Name, v), want: exitTwo, contain: "option " + o.Name,
					args: []string{"fuzz", "--system", sys.Name, "--opt", o.Name + "=" + v, "-o", out, "--budget", "2s"}, dir: dir, noFile: []string{out}})
			}
			if !shipped {
				continue
			}
			for _, v := range []int{o.Min, o.Max} {
				dir := s.t.TempDir()
				h := cloneHeader(h0)
				setOption(h, o.Name, strconv.Itoa(v))
				in := s.copyIn(dir, "", "x.trace", withHeader(s.t, h, rest))
				s.add(hostileCase{name: fmt.Sprintf("header %s %s=%d (a bound)", sys.Name, o.Name, v), args: []string{"replay", in},
					want: clean, inputs: []string{in}, dir: dir})
			}
		}
	}
}

func cloneHeader(h map[string]any) map[string]any {
	c := map[string]any{}
	for k, v := range h {
		c[k] = v
	}
	var opts []any
	for _, o := range h["options"].([]any) {
		m := o.(map[string]any)
		opts = append(opts, map[string]any{"name": m["name"], "value": m["value"]})
	}
	c["options"] = opts
	return c
}

func setOption(h map[string]any, name, value string) {
	for _, o := range h["options"].([]any) {
		if m := o.(map[string]any); m["name"] == name {
			m["value"] = value
		}
	}
}

// specials are inputs that are not trace files at all.
func (s *suite) specials() {
	dir := s.t.TempDir()
	fifo := filepath.Join(dir, "fifo.trace")
	require.NoError(s.t, syscall.Mkfifo(fifo, 0o644))
	loop := filepath.Join(dir, "loop.trace")
	require.NoError(s.t, os.Symlink(loop, loop))
	empty := s.copyIn(dir, "", "empty.trace", []byte{})
	random := make([]byte, 4096)
	for i := range random {
		random[i] = byte(s.rng.UintN(256))
	}
	noise := s.copyIn(dir, "", "noise.trace", random)
	for _, in := range []string{fifo, "/dev/zero", dir, loop, filepath.Join(dir, "missing.trace"), empty, noise} {
		out := filepath.Join(dir, "out")
		for _, args := range s.pick(in, out, 3) {
			s.add(hostileCase{name: fmt.Sprintf("%s: %s", filepath.Base(in), args[0]), args: args, want: exitTwo,
				dir: dir, noFile: []string{out}})
		}
	}
	s.add(hostileCase{name: "report --stats fifo", want: exitTwo, contain: "named pipe",
		args: []string{"report", s.traces["raft"], "-o", filepath.Join(dir, "r.html"), "--stats", fifo}, dir: dir, noFile: []string{filepath.Join(dir, "r.html")}})
}

// sameFiles are outputs that name an input, or another output.
func (s *suite) sameFiles() {
	dir := s.t.TempDir()
	in := s.copyIn(dir, s.traces["raft"], "in.trace", nil)
	link := filepath.Join(dir, "link.trace")
	require.NoError(s.t, os.Link(in, link))
	stats := s.copyIn(dir, "", "s.json", []byte(`{"stages":[{"name":"x"}]}`))
	o := filepath.Join(dir, "o.trace")
	for _, args := range [][]string{
		{"minimize", in, "-o", in},
		{"minimize", in, "-o", link},
		{"minimize", in, "-o", "./" + in},
		{"minimize", in, "-o", o, "--stats", in},
		{"minimize", in, "-o", o, "--stats", o},
		{"check", in, "-o", link},
		{"optimal", in, "-o", in},
		{"report", in, "-o", in},
		{"report", in, "-o", stats, "--stats", stats},
	} {
		s.add(hostileCase{name: "same file: " + strings.Join(args, " "), args: args, want: exitTwo,
			inputs: []string{in, stats}, dir: dir, noFile: []string{o}})
	}
}

func TestHostileInputs(t *testing.T) {
	if _, err := os.Stat("/dev/zero"); err != nil {
		t.Skip("needs /dev/zero")
	}
	self, err := os.Executable()
	require.NoError(t, err)
	s := newSuite(t)
	s.corrupted()
	s.extremes()
	s.specials()
	s.sameFiles()
	t.Logf("%d cases", len(s.cases))
	// Cases that share a directory run one after the other (one may
	// write an output that another asserts is absent); the groups run in
	// parallel.
	var groups [][]hostileCase
	at := map[string]int{}
	for _, c := range s.cases {
		i, ok := at[c.dir]
		if !ok || c.dir == "" {
			i = len(groups)
			at[c.dir] = i
			groups = append(groups, nil)
		}
		groups[i] = append(groups[i], c)
	}
	for i, g := range groups {
		t.Run(fmt.Sprintf("%03d", i), func(t *testing.T) {
			t.Parallel()
			for _, c := range g {
				runCase(t, self, c)
				for _, p := range c.noFile {
					os.Remove(p) // a failed case's output must not fail the next
				}
			}
		})
	}
}

func digest(t *testing.T, paths []string) map[string][32]byte {
	out := map[string][32]byte{}
	for _, p := range paths {
		b, err := os.ReadFile(p)
		require.NoError(t, err, p)
		out[p] = sha256.Sum256(b)
	}
	return out
}

func runCase(t *testing.T, self string, c hostileCase) {
	t.Log(c.name)
	before := digest(t, c.inputs)
	ctx, cancel := context.WithTimeout(context.Background(), caseTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, self, c.args...)
	cmd.Env = append(os.Environ(), childEnv+"=1")
	cmd.Stdin = strings.NewReader("quit\n")
	if c.dir != "" {
		cmd.Dir = c.dir
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	require.NoError(t, ctx.Err(), "%s: no answer within %s (a hang)", c.name, caseTimeout)
	code := cmd.ProcessState.ExitCode()
	if _, ok := err.(*exec.ExitError); err != nil && !ok {
		t.Fatalf("%s: %v", c.name, err)
	}
	errs := stderr.String()
	for _, bad := range []string{"goroutine ", "fatal error:", "runtime.", "panic: runtime error", "[recovered]"} {
		assert.NotContains(t, errs, bad, "%s: a panic or stack trace", c.name)
	}
	rss := cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss
	assert.Less(t, rss, int64(maxRSSKB), "%s: %d KB of memory", c.name, rss)
	switch c.want {
	case exitTwo:
		assert.Equal(t, 2, code, "%s: exit status; stderr %q", c.name, errs)
		assert.Equal(t, 1, strings.Count(errs, "\n"), "%s: one line: %q", c.name, errs)
		assert.Contains(t, errs, c.contain, c.name)
	case clean:
		// An input that is still valid may start real work, with its
		// progress lines on stderr: the error is then its last line.
		assert.Contains(t, []int{0, 1, 2}, code, "%s: exit status; stderr %q", c.name, errs)
		if code != 0 {
			lines := strings.Split(strings.TrimSuffix(errs, "\n"), "\n")
			assert.True(t, strings.HasPrefix(lines[len(lines)-1], filepath.Base(self)+": "), "%s: the error is its last line: %q", c.name, errs)
		}
	}
	assert.Equal(t, before, digest(t, c.inputs), "%s: inputs changed", c.name)
	for _, p := range c.noFile {
		assert.NoFileExists(t, p, c.name)
	}
	if c.dir != "" {
		left, _ := filepath.Glob(filepath.Join(c.dir, ".*"))
		assert.Empty(t, left, "%s: temporary files left", c.name)
	}
}
