package cli_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/demi-project/demi/cli"
)

// FuzzArgs runs the command line on arbitrary argument vectors (the
// arguments separated by NUL; IN stands for a copy of a shipped trace),
// each cut short after 300 ms as by Ctrl-C. Whatever the arguments, the
// command returns an exit status of 0, 1, 2 or 130, prints at most one
// line on stderr when it fails, never panics, and leaves its input
// unchanged.
//
// Run it with: go test ./cli -run '^$' -fuzz FuzzArgs -fuzztime 60s
func FuzzArgs(f *testing.F) {
	for _, args := range []string{
		"replay\x00IN",
		"replay\x00IN\x00--times\x00-1",
		"replay\x00--step\x00IN",
		"show\x00IN\x00--json\x00--format\x00mermaid",
		"show\x00IN\x00--rounds\x00--opt\x00members=1000000",
		"show\x00IN\x00--format\x00\x1b[31m",
		"minimize\x00IN\x00-o\x00IN",
		"minimize\x00IN\x00--stats\x00IN",
		"minimize\x00IN\x00-j\x009223372036854775807",
		"minimize\x00IN\x00--budget\x000s",
		"minimize\x00IN\x00--budget\x001m\x00--budget\x002m",
		"optimal\x00IN\x00-j\x00-1\x00--max-states\x000",
		"check\x00IN\x00--schedules\x000",
		"report\x00IN\x00-o\x00IN",
		"fuzz\x00--system\x00raft\x00--opt\x00members=4611686018427387904",
		"fuzz\x00--system\x00tokenring\x00--max-steps\x00999999999999",
		"systems\x00extra",
		"--opt",
		"",
	} {
		f.Add(args)
	}
	orig, err := os.ReadFile("../examples/traces/raft-45.min.trace")
	if err != nil {
		f.Fatal(err)
	}
	want := sha256.Sum256(orig)
	f.Fuzz(func(t *testing.T, line string) {
		dir := t.TempDir()
		t.Chdir(dir)
		in := filepath.Join(dir, "in.trace")
		if err := os.WriteFile(in, orig, 0o644); err != nil {
			t.Fatal(err)
		}
		args := strings.Split(line, "\x00")
		if line == "" {
			args = nil
		}
		for i, a := range args {
			if a == "IN" {
				args[i] = in
			}
		}
		ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
		defer cancel()
		var out, errb bytes.Buffer
		code := cli.Run(ctx, catalog(), args, &out, &errb)
		errs := errb.String()
		if !slices.Contains([]int{0, 1, 2, cli.ExitInterrupted}, code) {
			t.Fatalf("%q: exit status %d", args, code)
		}
		if code != 0 && code != cli.ExitInterrupted && strings.Count(errs, "\n") > 1 {
			t.Fatalf("%q: more than one line on stderr: %q", args, errs)
		}
		if strings.Contains(errs, "goroutine ") || strings.Contains(errs, "panic: runtime error") {
			t.Fatalf("%q: a panic: %q", args, errs)
		}
		got, err := os.ReadFile(in)
		if err != nil || sha256.Sum256(got) != want {
			t.Fatalf("%q: the input changed (%v)", args, err)
		}
	})
}
