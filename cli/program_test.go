package cli

import (
	"runtime/debug"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestProgramOf(t *testing.T) {
	mod := func(v string) *debug.BuildInfo {
		return &debug.BuildInfo{Path: "example.com/counter/cmd/counter", Main: debug.Module{Path: "example.com/counter", Version: v}}
	}
	cases := []struct {
		name, arg0 string
		info       *debug.BuildInfo
		want       Program
	}{
		{"go install of a tag", "/home/u/go/bin/counter", mod("v1.2.0"),
			Program{"counter", "go install example.com/counter/cmd/counter@v1.2.0"}},
		{"go run", "/tmp/go-build123/b001/exe/counter", mod("(devel)"),
			Program{"counter", "go install ./cmd/counter   # in a checkout of example.com/counter"}},
		{"go build in a checkout: a pseudo-version", "./counter", mod("v0.0.0-20261127120000-0123456789ab"),
			Program{"counter", "go install ./cmd/counter   # in a checkout of example.com/counter"}},
		{"dirty checkout", "./counter", mod("v1.2.1-0.20261127120000-0123456789ab+dirty"),
			Program{"counter", "go install ./cmd/counter   # in a checkout of example.com/counter"}},
		{"main package at the module root", "mydemi.exe",
			&debug.BuildInfo{Path: "example.com/mydemi", Main: debug.Module{Path: "example.com/mydemi", Version: "(devel)"}},
			Program{"mydemi", "go install .   # in a checkout of example.com/mydemi"}},
		{"test binary", "cli.test", &debug.BuildInfo{Path: "github.com/demi-project/demi/cli.test"}, Program{Name: "cli.test"}},
		{"no build info", "", nil, Program{Name: "demi"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			assert.Equal(t, c.want, programOf(c.arg0, c.info))
		})
	}
}

func TestAsNamesTheBinaryInPrintedCommands(t *testing.T) {
	root := New(nil, nil, nil, As(Program{Name: "counter"}))
	assert.Equal(t, "counter", root.Name())
}
