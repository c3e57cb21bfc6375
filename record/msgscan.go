package record

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
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
		var size, children uint64 // payload bytes to copy; nested values
		switch {
		case c <= 0x7f || c >= 0xe0 || c == 0xc0 || c == 0xc2 || c == 0xc3:
			// positive/negative fixint, nil, false, true
		case c <= 0x8f:
			children = 2 * uint64(c&0x0f)
		case c <= 0x9f:
			children = uint64(c & 0x0f)
		case c <= 0xbf:
			size = uint64(c & 0x1f)
		case c == 0xc4 || c == 0xd9: // bin8, str8
			size, buf, err = readLen(r, buf, 1)
		case c == 0xc5 || c == 0xda: // bin16, str16
			size, buf, err = readLen(r, buf, 2)
		case c == 0xc6 || c == 0xdb: // bin32, str32
			size, buf, err = readLen(r, buf, 4)
		case c == 0xc7: // ext8: length, type, data
			size, buf, err = readLen(r, buf, 1)
			size++
		case c == 0xc8:
			size, buf, err = readLen(r, buf, 2)
			size++
		case c == 0xc9:
			size, buf, err = readLen(r, buf, 4)
			size++
		case c == 0xca: // float32
			size = 4
		case c == 0xcb: // float64
			size = 8
		case c >= 0xcc && c <= 0xd3: // uint8..uint64, int8..int64
			size = 1 << ((c - 0xcc) & 3)
		case c >= 0xd4 && c <= 0xd8: // fixext1..fixext16: type, data
			size = 1 + 1<<(c-0xd4)
		case c == 0xdc: // array16
			children, buf, err = readLen(r, buf, 2)
		case c == 0xdd: // array32
			children, buf, err = readLen(r, buf, 4)
		case c == 0xde: // map16
			children, buf, err = readLen(r, buf, 2)
			children *= 2
		case c == 0xdf: // map32
			children, buf, err = readLen(r, buf, 4)
			children *= 2
		default: // 0xc1 is never used
			return buf, fmt.Errorf("msgpack: invalid code %#x", c)
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
