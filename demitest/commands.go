package demitest

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// demiModule is the module path of demi itself.
const demiModule = "github.com/demi-project/demi"

// commands renders the commands that replay, step through and show the
// trace at path (round by round when rounded), and, given a test name and
// flags, re-run the test, all from the module root.
func commands(c config, path string, rounded bool, test, flags string) string {
	root, _ := moduleRoot()
	rel := fromRoot(root, path)
	var b strings.Builder
	fmt.Fprintf(&b, "from the module root:\n")
	fmt.Fprintf(&b, "  replay:  %s replay %s\n", c.command, rel)
	fmt.Fprintf(&b, "  step:    %s replay --step %s\n", c.command, rel)
	show := "show"
	if rounded {
		show = "show --rounds"
	}
	fmt.Fprintf(&b, "  show:    %s %s %s\n", c.command, show, rel)
	if test != "" {
		pkg := "."
		if wd, err := os.Getwd(); err == nil && root != "" {
			if r, err := filepath.Rel(root, wd); err == nil {
				pkg = "./" + filepath.ToSlash(r)
			}
		}
		fmt.Fprintf(&b, "  re-run:  go test %s -run '%s' %s\n", pkg, runPattern(test), flags)
	}
	return b.String()
}

// runPattern is the -run pattern that selects exactly the test (and
// subtest) named name.
func runPattern(name string) string {
	parts := strings.Split(name, "/")
	for i, p := range parts {
		parts[i] = "^" + regexpQuote(p) + "$"
	}
	return strings.Join(parts, "/")
}

func regexpQuote(s string) string {
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune(`\.+*?()|[]{}^$`, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// fromRoot returns path relative to root when it can, else absolute.
func fromRoot(root, path string) string {
	abs, err := filepath.Abs(path)
	if err != nil {
		return path
	}
	if root == "" {
		return abs
	}
	r, err := filepath.Rel(root, abs)
	if err != nil || strings.HasPrefix(r, "..") {
		return abs
	}
	return filepath.ToSlash(r)
}

// moduleRoot finds the directory of the go.mod above the working
// directory (where `go test` runs a package's tests) and its module path.
func moduleRoot() (dir, module string) {
	wd, err := os.Getwd()
	if err != nil {
		return "", ""
	}
	for d := wd; ; d = filepath.Dir(d) {
		if f, err := os.Open(filepath.Join(d, "go.mod")); err == nil {
			defer f.Close()
			sc := bufio.NewScanner(f)
			for sc.Scan() {
				if m, ok := strings.CutPrefix(strings.TrimSpace(sc.Text()), "module "); ok {
					return d, strings.Trim(strings.TrimSpace(m), `"`)
				}
			}
			return d, ""
		}
		if filepath.Dir(d) == d {
			return "", ""
		}
	}
}

// defaultCommand is the demi binary of the failure message: demi's own
// inside its module; elsewhere the module's own binary, a main package
// that calls cli.Main (found by mainWithCLI); else stock demi fetched by
// module path, which knows only demi's example systems.
func defaultCommand() string {
	root, module := moduleRoot()
	if module == demiModule {
		return "go run ./cmd/demi"
	}
	switch dir := mainWithCLI(root); dir {
	case "":
	case ".":
		return "go run ."
	default:
		return "go run ./" + dir
	}
	return "go run " + demiModule + "/cmd/demi"
}

// mainWithCLI returns the directory, relative to the module root and in
// slash form, of the first main package (in lexical order) whose files
// call cli.Main; "" if none. It skips testdata, vendor, hidden
// directories and nested modules, and gives up after maxScanned entries.
func mainWithCLI(root string) string {
	if root == "" {
		return ""
	}
	const maxScanned = 20000
	scanned := 0
	found := ""
	errFound := errors.New("found")
	_ = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		scanned++
		if err != nil || scanned > maxScanned {
			return filepath.SkipAll
		}
		name := d.Name()
		if d.IsDir() {
			if path == root {
				return nil
			}
			if name == "testdata" || name == "vendor" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") {
				return filepath.SkipDir
			}
			if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil || !mainCallsCLI.Match(src) {
			return nil
		}
		dir, err := filepath.Rel(root, filepath.Dir(path))
		if err != nil {
			return nil
		}
		found = filepath.ToSlash(dir)
		return errFound
	})
	return found
}

// mainCallsCLI matches a file of package main that calls cli.Main.
var mainCallsCLI = regexp.MustCompile(`(?s)^(\s*//[^\n]*\n|\s*/\*.*?\*/)*\s*package main\b.*\bcli\.Main\(`)
