package record

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"slices"
)

// Limits on one msgpack value of a trace file (the header or one event).
// They keep a corrupted or hostile file from exhausting the stack (the
// msgpack decoder recurses once per nesting level) or memory (a bogus length
// must not allocate before the bytes are really there).
const (
	maxNesting   = 64      // arrays and maps inside one record
	maxValueSize = 1 << 28 // bytes of one record (256 MiB)
	readChunk    = 1 << 16 // bytes read (and allocated) at a time
)

// errNoValue is returned by scanValue when the stream ends cleanly before a
// new value starts.
var errNoValue = io.EOF

// shape is what the first byte of a msgpack value says about it: the
// msgpack code table, written once for the scanner (scanValue) and the
// canonical re-encoder (valueHead). A value is its code, then lenBytes
// bytes of big-endian length, then size payload bytes, then children
// nested values.
type shape struct {
	lenBytes       int    // 0, 1, 2 or 4
	size, children uint64 // known from the code alone
	counts         uint8  // what the length counts (countBytes, ...)
	isMap          bool
}

// What a length counts.
const (
	countBytes   = iota // payload bytes
	countValues         // nested values (arrays)
	countEntries        // key-value pairs (maps): two nested values each
)

// withLen returns the value's payload size and nested values given the
// length read after its code.
func (sh shape) withLen(n uint64) (size, children uint64) {
	switch sh.counts {
	case countValues:
		return sh.size, n
	case countEntries:
		return sh.size, 2 * n
	}
	return sh.size + n, sh.children
}

// shapeOf decodes code c.
func shapeOf(c byte) (shape, error) {
	switch {
	case c <= 0x7f || c >= 0xe0 || c == 0xc0 || c == 0xc2 || c == 0xc3:
		return shape{}, nil // positive/negative fixint, nil, false, true
	case c <= 0x8f: // fixmap
		return shape{children: 2 * uint64(c&0x0f), isMap: true}, nil
	case c <= 0x9f: // fixarray
		return shape{children: uint64(c & 0x0f)}, nil
	case c <= 0xbf: // fixstr
		return shape{size: uint64(c & 0x1f)}, nil
	case c == 0xc4 || c == 0xd9: // bin8, str8
		return shape{lenBytes: 1}, nil
	case c == 0xc5 || c == 0xda: // bin16, str16
		return shape{lenBytes: 2}, nil
	case c == 0xc6 || c == 0xdb: // bin32, str32
		return shape{lenBytes: 4}, nil
	case c >= 0xc7 && c <= 0xc9: // ext8, ext16, ext32: length, type, data
		return shape{lenBytes: 1 << (c - 0xc7), size: 1}, nil
	case c == 0xca: // float32
		return shape{size: 4}, nil
	case c == 0xcb: // float64
		return shape{size: 8}, nil
	case c >= 0xcc && c <= 0xd3: // uint8..uint64, int8..int64
		return shape{size: 1 << ((c - 0xcc) & 3)}, nil
	case c >= 0xd4 && c <= 0xd8: // fixext1..fixext16: type, data
		return shape{size: 1 + 1<<(c-0xd4)}, nil
	case c == 0xdc || c == 0xdd: // array16, array32
		return shape{lenBytes: 2 << (c - 0xdc), counts: countValues}, nil
	case c == 0xde || c == 0xdf: // map16, map32
		return shape{lenBytes: 2 << (c - 0xde), counts: countEntries, isMap: true}, nil
	}
	return shape{}, fmt.Errorf("msgpack: invalid code %#x", c) // 0xc1 is never used
}

// scanValue reads exactly one complete msgpack value from r and appends its
// bytes to buf. It walks the value iteratively, so its cost is bounded by
// the file's size and its stack by maxNesting. It returns io.EOF when r is
// at its end before the value starts and io.ErrUnexpectedEOF when r ends
// inside the value.
func scanValue(r *bufio.Reader, buf []byte) ([]byte, error) {
	var stack [maxNesting + 1]uint64 // values still to read at each level
	stack[0] = 1
	top := 0
	first := true
	for {
		for stack[top] == 0 {
			if top == 0 {
				return buf, nil
			}
			top--
		}
		stack[top]--
		c, err := r.ReadByte()
		if err != nil {
			if first && errors.Is(err, io.EOF) {
				return buf, errNoValue
			}
			return buf, unexpected(err)
		}
		first = false
		buf = append(buf, c)
		sh, err := shapeOf(c)
		if err != nil {
			return buf, err
		}
		size, children := sh.size, sh.children // payload bytes to copy; nested values
		if sh.lenBytes > 0 {
			var n uint64
			n, buf, err = readLen(r, buf, sh.lenBytes)
			size, children = sh.withLen(n)
		}
		if err != nil {
			return buf, err
		}
		if size > 0 {
			if uint64(len(buf))+size > maxValueSize {
				return buf, fmt.Errorf("msgpack: value larger than %d bytes", maxValueSize)
			}
			if buf, err = readBytes(r, buf, int(size)); err != nil {
				return buf, err
			}
		}
		if children > 0 {
			if top == maxNesting {
				return buf, fmt.Errorf("msgpack: nested deeper than %d levels", maxNesting)
			}
			top++
			stack[top] = children
		}
	}
}

// readLen reads an n-byte big-endian length, appending its bytes to buf.
func readLen(r *bufio.Reader, buf []byte, n int) (uint64, []byte, error) {
	at := len(buf)
	buf, err := readBytes(r, buf, n)
	if err != nil {
		return 0, buf, err
	}
	b := buf[at:]
	switch n {
	case 1:
		return uint64(b[0]), buf, nil
	case 2:
		return uint64(binary.BigEndian.Uint16(b)), buf, nil
	default:
		return uint64(binary.BigEndian.Uint32(b)), buf, nil
	}
}

// readBytes appends n bytes from r to buf, growing buf only as the bytes
// arrive so that a bogus length in a short file allocates little.
func readBytes(r *bufio.Reader, buf []byte, n int) ([]byte, error) {
	if n <= r.Buffered() { // the common case: copy straight from the buffer
		b, _ := r.Peek(n)
		buf = append(buf, b...)
		_, err := r.Discard(n)
		return buf, err
	}
	for n > 0 {
		k := min(n, readChunk)
		at := len(buf)
		buf = append(buf, make([]byte, k)...)
		if _, err := io.ReadFull(r, buf[at:]); err != nil {
			return buf[:at], unexpected(err)
		}
		n -= k
	}
	return buf, nil
}

func unexpected(err error) error {
	if errors.Is(err, io.EOF) {
		return io.ErrUnexpectedEOF
	}
	return err
}

// valueHead decodes the head of the msgpack value that starts b: the length
// of the head, the payload bytes that follow it, the number of nested values
// and whether the value is a map.
func valueHead(b []byte) (head int, size, children uint64, isMap bool, err error) {
	if len(b) == 0 {
		return 0, 0, 0, false, io.ErrUnexpectedEOF
	}
	c := b[0]
	n := func(k int) uint64 { // big-endian length of k bytes after the code
		if len(b) < 1+k {
			err = io.ErrUnexpectedEOF
			return 0
		}
		head = 1 + k
		switch k {
		case 1:
			return uint64(b[1])
		case 2:
			return uint64(binary.BigEndian.Uint16(b[1:]))
		default:
			return uint64(binary.BigEndian.Uint32(b[1:]))
		}
	}
	sh, err := shapeOf(c)
	if err != nil {
		return 0, 0, 0, false, err
	}
	head, size, children, isMap = 1, sh.size, sh.children, sh.isMap
	if sh.lenBytes > 0 {
		size, children = sh.withLen(n(sh.lenBytes))
	}
	if err == nil && uint64(len(b)-head) < size {
		err = io.ErrUnexpectedEOF
	}
	return head, size, children, isMap, err
}

// hasMap reports whether the msgpack value b holds a map anywhere.
func hasMap(b []byte) bool {
	for pending := uint64(1); pending > 0 && len(b) > 0; pending-- {
		head, size, children, isMap, err := valueHead(b)
		if err != nil || isMap {
			return err == nil
		}
		b = b[head+int(size):]
		pending += children
	}
	return false
}

// canonical re-encodes the msgpack value b with the entries of every map
// sorted by the bytes of their keys, so that equal values give equal bytes
// (the msgpack encoder sorts only a few map types, and Go iterates maps in
// random order).
func canonical(b []byte) ([]byte, error) {
	out, rest, err := canonValue(b, make([]byte, 0, len(b)), 0)
	if err != nil {
		return nil, err
	}
	if len(rest) != 0 {
		return nil, errors.New("msgpack: trailing bytes after a value")
	}
	return out, nil
}

func canonValue(b, out []byte, depth int) ([]byte, []byte, error) {
	if depth > maxNesting {
		return nil, nil, fmt.Errorf("msgpack: nested deeper than %d levels", maxNesting)
	}
	head, size, children, isMap, err := valueHead(b)
	if err != nil {
		return nil, nil, err
	}
	if children == 0 {
		n := head + int(size)
		return append(out, b[:n]...), b[n:], nil
	}
	out = append(out, b[:head]...)
	b = b[head:]
	if !isMap {
		for i := uint64(0); i < children; i++ {
			if out, b, err = canonValue(b, out, depth+1); err != nil {
				return nil, nil, err
			}
		}
		return out, b, nil
	}
	// Canonicalize the entries in place in out, remembering where each
	// starts, then reorder them if their keys are not in order.
	type entry struct{ at, val, end int } // key at out[at:val], value at out[val:end]
	var small [16]entry
	entries := small[:0]
	start := len(out)
	sorted := true
	for i := uint64(0); i < children/2; i++ {
		e := entry{at: len(out)}
		if out, b, err = canonValue(b, out, depth+1); err != nil {
			return nil, nil, err
		}
		e.val = len(out)
		if out, b, err = canonValue(b, out, depth+1); err != nil {
			return nil, nil, err
		}
		e.end = len(out)
		if n := len(entries); n > 0 && bytes.Compare(out[entries[n-1].at:entries[n-1].val], out[e.at:e.val]) > 0 {
			sorted = false
		}
		entries = append(entries, e)
	}
	if !sorted {
		region := bytes.Clone(out[start:])
		key := func(e entry) []byte { return region[e.at-start : e.val-start] }
		slices.SortStableFunc(entries, func(x, y entry) int { return bytes.Compare(key(x), key(y)) })
		out = out[:start]
		for _, e := range entries {
			out = append(out, region[e.at-start:e.end-start]...)
		}
	}
	return out, b, nil
}
