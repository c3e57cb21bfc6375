package etcdraft

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// The state machine is a small key-value store. A proposal's data is the
// command "set KEY VALUE" or "del KEY".

// command encodes a Put as an entry's data.
func command(p Put) []byte {
	if p.Value == "" {
		return []byte("del " + p.Key)
	}
	return []byte("set " + p.Key + " " + p.Value)
}

// describeData renders an entry's data for display.
func describeData(data []byte) string { return fmt.Sprintf("%q", data) }

// kvStore is the state machine: the map the applied commands built.
type kvStore map[string]string

// apply runs one command (empty data, such as the entry a new leader
// appends, does nothing).
func (kv kvStore) apply(data []byte) {
	f := strings.SplitN(string(data), " ", 3)
	switch {
	case len(f) == 3 && f[0] == "set":
		kv[f[1]] = f[2]
	case len(f) == 2 && f[0] == "del":
		delete(kv, f[1])
	}
}

// encode returns the store as snapshot data: sorted "key=value" lines.
func (kv kvStore) encode() []byte {
	var b strings.Builder
	for _, k := range slices.Sorted(maps.Keys(kv)) {
		b.WriteString(k + "=" + kv[k] + "\n")
	}
	return []byte(b.String())
}

// decodeKV reads what encode wrote.
func decodeKV(data []byte) kvStore {
	kv := kvStore{}
	for line := range strings.SplitSeq(string(data), "\n") {
		if k, v, ok := strings.Cut(line, "="); ok {
			kv[k] = v
		}
	}
	return kv
}
