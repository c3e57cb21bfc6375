package kvapp

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// The state machine is a small key-value store. A proposal's data is the
// command "set KEY VALUE" or "del KEY".

// Command encodes a client's write of value to key as an entry's data (an
// empty value deletes the key).
func Command(key, value string) []byte {
	if value == "" {
		return []byte("del " + key)
	}
	return []byte("set " + key + " " + value)
}

// DescribeData renders an entry's data for display.
func DescribeData(data []byte) string { return fmt.Sprintf("%q", data) }

// Store is the state machine: the map the applied commands built.
type Store map[string]string

// Apply runs one command (empty data, such as the entry a new leader
// appends, does nothing).
func (kv Store) Apply(data []byte) {
	if key, value, del, ok := command(string(data)); ok && del {
		delete(kv, key)
	} else if ok {
		kv[key] = value
	}
}

// command parses an entry's data: "set KEY VALUE" (VALUE may hold spaces)
// or "del KEY"; ok is false for anything else.
func command(data string) (key, value string, del, ok bool) {
	verb, rest, spaced := strings.Cut(data, " ")
	key, value, set := strings.Cut(rest, " ")
	switch {
	case !spaced:
	case verb == "set" && set:
		return key, value, false, true
	case verb == "del" && !set:
		return key, "", true, true
	}
	return "", "", false, false
}

// Encode returns the store as snapshot data: sorted "key=value" lines.
func (kv Store) Encode() []byte {
	var b strings.Builder
	for _, k := range slices.Sorted(maps.Keys(kv)) {
		b.WriteString(k + "=" + kv[k] + "\n")
	}
	return []byte(b.String())
}

// Decode reads what Encode wrote.
func Decode(data []byte) Store {
	kv := Store{}
	for line := range strings.SplitSeq(string(data), "\n") {
		if k, v, ok := strings.Cut(line, "="); ok {
			kv[k] = v
		}
	}
	return kv
}
