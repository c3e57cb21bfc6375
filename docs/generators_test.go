package docs_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/demi-project/demi/record"
	"github.com/stretchr/testify/require"
	"github.com/vmihailenco/msgpack/v5"
	"github.com/vmihailenco/msgpack/v5/msgpcode"
)

// generators produce the blocks marked "<!-- generated: NAME -->".
var generators = map[string]func(t *testing.T, s *session) string{
	"trace-example": traceExample,
	"step-screen":   stepScreen,
	"step-keys":     stepKeys,
}

// traceExampleArgs is the fuzz run whose trace docs/trace-format.md shows.
var traceExampleArgs = []string{"fuzz", "--system", "tokenring", "--bug", "restore-token", "--seed", "1", "--max-steps", "60", "-o", "ring.trace"}

// traceExampleHead is how many events the example shows before eliding.
const traceExampleHead = 10

// traceExample is docs/trace-format.md's example: the size of the trace
// traceExampleArgs writes, then its msgpack values one a line as JSON (keys
// in the order they are written), each event beside what demi show says of
// it: the header, the first traceExampleHead events, "…", the last event.
func traceExample(t *testing.T, s *session) string {
	s.run(t, "trace-example", s.catalog(), "demi", traceExampleArgs)
	path := filepath.Join(s.dir, "ring.trace")
	raw, err := os.ReadFile(path)
	require.NoError(t, err)
	tr, _, err := record.ReadFile(path, s.catalog())
	require.NoError(t, err)

	dec := msgpack.NewDecoder(bytes.NewReader(raw))
	var values []string
	for {
		v, err := msgpackJSON(dec)
		if errors.Is(err, io.EOF) {
			break
		}
		require.NoError(t, err)
		values = append(values, v)
	}
	require.Len(t, values, 1+len(tr.Events), "a header and one value per event")

	shown := make([]int, 0, traceExampleHead+1)
	for i := 0; i < min(traceExampleHead, len(tr.Events)); i++ {
		shown = append(shown, i)
	}
	if last := len(tr.Events) - 1; last >= traceExampleHead {
		shown = append(shown, last)
	}
	width := 0
	for _, i := range shown {
		width = max(width, len([]rune(values[1+i])))
	}
	var b strings.Builder
	fmt.Fprintf(&b, "ring.trace: %d bytes, a header and %d events (%d deliveries, %d externals)\n",
		len(raw), len(tr.Events), tr.Header.Deliveries, tr.Header.Externals)
	b.WriteString(values[0] + "\n")
	for k, i := range shown {
		if k == traceExampleHead {
			b.WriteString("…\n")
		}
		v := values[1+i]
		fmt.Fprintf(&b, "%s%s  %2d  %s\n", v, strings.Repeat(" ", width-len([]rune(v))), i, tr.Events[i])
	}
	return b.String()
}

// catalog is the catalog of cmd/demi.
func (s *session) catalog() *record.Catalog { return prompts[0].catalog() }

// msgpackJSON reads the next msgpack value and renders it as JSON, keeping
// the order of map keys as written.
func msgpackJSON(dec *msgpack.Decoder) (string, error) {
	c, err := dec.PeekCode()
	if err != nil {
		return "", err
	}
	switch {
	case msgpcode.IsFixedMap(c) || c == msgpcode.Map16 || c == msgpcode.Map32:
		n, err := dec.DecodeMapLen()
		if err != nil {
			return "", err
		}
		kv, err := msgpackJSONs(dec, 2*n)
		if err != nil {
			return "", err
		}
		parts := make([]string, n)
		for i := range parts {
			parts[i] = kv[2*i] + ":" + kv[2*i+1]
		}
		return "{" + strings.Join(parts, ",") + "}", nil
	case msgpcode.IsFixedArray(c) || c == msgpcode.Array16 || c == msgpcode.Array32:
		n, err := dec.DecodeArrayLen()
		if err != nil {
			return "", err
		}
		parts, err := msgpackJSONs(dec, n)
		if err != nil {
			return "", err
		}
		return "[" + strings.Join(parts, ",") + "]", nil
	}
	v, err := dec.DecodeInterfaceLoose()
	if err != nil {
		return "", err
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return "", err
	}
	return strings.TrimSuffix(buf.String(), "\n"), nil
}

// msgpackJSONs reads n msgpack values as JSON.
func msgpackJSONs(dec *msgpack.Decoder, n int) ([]string, error) {
	out := make([]string, 0, max(n, 0))
	for range n {
		v, err := msgpackJSON(dec)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}
