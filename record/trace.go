package record

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"slices"

	"github.com/demi-project/demi/internal/paths"
	"github.com/vmihailenco/msgpack/v5"
)

// FormatVersion is the version of the trace format this package writes and
// reads. See docs/trace-format.md.
const FormatVersion = 1

const magic = "demi-trace"

// Header is the first record of a trace file.
type Header struct {
	Magic      string     `msgpack:"magic" json:"-"`
	Format     int        `msgpack:"format" json:"format"`
	System     string     `msgpack:"system" json:"system"`
	Options    []Option   `msgpack:"options" json:"options"`
	Seed       uint64     `msgpack:"seed" json:"seed"`
	Network    string     `msgpack:"network" json:"network"`
	Violation  *Violation `msgpack:"violation" json:"violation"`
	Deliveries int        `msgpack:"deliveries" json:"deliveries"`
	Externals  int        `msgpack:"externals" json:"externals"`
	EventCount int        `msgpack:"events" json:"events"`
	// Note is free text: how the trace was made (fuzz, minimize, by hand).
	Note string `msgpack:"note,omitempty" json:"note,omitempty"`
	// Fuzz, when set, is the fuzz mode that made the trace and the
	// parameters it drew for the run (mode.go); nil for traces of the walk
	// mode and traces not made by fuzz.
	Fuzz *FuzzInfo `msgpack:"fuzz,omitempty" json:"fuzz,omitempty"`
	// Legacy is not stored: it is set by the reader to the violation's
	// fingerprint as the file recorded it when an older demi wrote it in
	// a form this one fingerprints differently (the violation then holds
	// today's form; see legacy.go). Empty otherwise.
	Legacy string `msgpack:"-" json:"-"`
}

// OptionMap returns the header's options as a map.
func (h *Header) OptionMap() Options {
	o := Options{}
	for _, p := range h.Options {
		o[p.Name] = p.Value
	}
	return o
}

// Trace is a recorded execution: its header and its events in order.
type Trace struct {
	Header Header
	Events []Event
}

// Recount sets the header's counts from the events.
func (t *Trace) Recount() {
	t.Header.Deliveries, t.Header.Externals = 0, 0
	for _, e := range t.Events {
		if e.Kind == Deliver {
			t.Header.Deliveries++
		} else {
			t.Header.Externals++
		}
	}
	t.Header.EventCount = len(t.Events)
}

// Externals returns the trace's external events, in order.
func (t *Trace) Externals() []Event {
	var out []Event
	for _, e := range t.Events {
		if e.Kind.IsExternal() {
			out = append(out, e)
		}
	}
	return out
}

// wireEvent is an event as stored: the message as its registered type name
// and its msgpack-encoded payload.
type wireEvent struct {
	Kind    Kind               `msgpack:"k"`
	ID      MsgID              `msgpack:"id,omitempty"`
	From    ActorID            `msgpack:"f,omitempty"`
	To      ActorID            `msgpack:"t,omitempty"`
	Type    string             `msgpack:"ty,omitempty"`
	Payload msgpack.RawMessage `msgpack:"p,omitempty"`
	Timer   string             `msgpack:"tm,omitempty"`
	Cause   int                `msgpack:"c"`
	Actor   ActorID            `msgpack:"a,omitempty"`
	A       []ActorID          `msgpack:"pa,omitempty"`
	B       []ActorID          `msgpack:"pb,omitempty"`
	Cond    string             `msgpack:"cd,omitempty"`
	Limit   int                `msgpack:"l,omitempty"`
	At      int                `msgpack:"at,omitempty"` // an int, not a VirtualTime: msgpack writes ints compactly
}

// FormatError reports a trace file that cannot be read: corrupted,
// truncated, of another format version, or of an unknown system.
type FormatError struct {
	Event int // index of the event being read, or -1 for the header
	Err   error
}

func (e *FormatError) Error() string {
	if e.Event < 0 {
		return "bad trace header: " + e.Err.Error()
	}
	return fmt.Sprintf("bad trace at event %d: %v", e.Event, e.Err)
}

func (e *FormatError) Unwrap() error { return e.Err }

// Encode writes the trace to w.
func (t *Trace) Encode(w io.Writer) error {
	bw := bufio.NewWriter(w)
	enc := msgpack.NewEncoder(bw)
	enc.SetSortMapKeys(true)
	h := t.Header
	h.Magic, h.Format, h.EventCount = magic, FormatVersion, len(t.Events)
	if err := enc.Encode(&h); err != nil {
		return fmt.Errorf("encode header: %w", err)
	}
	var we wireEvent
	var pe payloadEncoder
	for i := range t.Events {
		if err := toWire(&t.Events[i], &we, &pe); err != nil {
			return fmt.Errorf("encode event %d: %w", i, err)
		}
		if err := encodeWire(enc, &we); err != nil {
			return fmt.Errorf("encode event %d: %w", i, err)
		}
	}
	return bw.Flush()
}

// encodeWire writes w exactly as msgpack's reflection-based encoder writes
// the wireEvent struct (a map of the fields that are not empty, in
// declaration order, with the same integer encodings), without its cost:
// checking omitempty by reflection allocates for every field.
func encodeWire(enc *msgpack.Encoder, w *wireEvent) error {
	n := 2 // k and c are always written
	for _, set := range [...]bool{w.ID != 0, w.From != "", w.To != "", w.Type != "", len(w.Payload) > 0,
		w.Timer != "", w.Actor != "", len(w.A) > 0, len(w.B) > 0, w.Cond != "", w.Limit != 0, w.At != 0} {
		if set {
			n++
		}
	}
	var err error
	put := func(f func() error) {
		if err == nil {
			err = f()
		}
	}
	str := func(key, v string) {
		put(func() error { return enc.EncodeString(key) })
		put(func() error { return enc.EncodeString(v) })
	}
	ids := func(key string, v []ActorID) {
		put(func() error { return enc.EncodeString(key) })
		put(func() error { return enc.EncodeArrayLen(len(v)) })
		for _, id := range v {
			put(func() error { return enc.EncodeString(string(id)) })
		}
	}
	put(func() error { return enc.EncodeMapLen(n) })
	put(func() error { return enc.EncodeString("k") })
	put(func() error { return enc.EncodeUint8(uint8(w.Kind)) })
	if w.ID != 0 {
		put(func() error { return enc.EncodeString("id") })
		put(func() error { return enc.EncodeUint64(uint64(w.ID)) })
	}
	if w.From != "" {
		str("f", string(w.From))
	}
	if w.To != "" {
		str("t", string(w.To))
	}
	if w.Type != "" {
		str("ty", w.Type)
	}
	if len(w.Payload) > 0 {
		put(func() error { return enc.EncodeString("p") })
		put(func() error { _, err := enc.Writer().Write(w.Payload); return err })
	}
	if w.Timer != "" {
		str("tm", w.Timer)
	}
	put(func() error { return enc.EncodeString("c") })
	put(func() error { return enc.EncodeInt(int64(w.Cause)) })
	if w.Actor != "" {
		str("a", string(w.Actor))
	}
	if len(w.A) > 0 {
		ids("pa", w.A)
	}
	if len(w.B) > 0 {
		ids("pb", w.B)
	}
	if w.Cond != "" {
		str("cd", w.Cond)
	}
	if w.Limit != 0 {
		put(func() error { return enc.EncodeString("l") })
		put(func() error { return enc.EncodeInt(int64(w.Limit)) })
	}
	if w.At != 0 {
		put(func() error { return enc.EncodeString("at") })
		put(func() error { return enc.EncodeInt(int64(w.At)) })
	}
	return err
}

func toWire(e *Event, w *wireEvent, pe *payloadEncoder) error {
	*w = wireEvent{Kind: e.Kind, ID: e.ID, From: e.From, To: e.To, Timer: e.Timer, Cause: e.Cause,
		Actor: e.Actor, A: e.A, B: e.B, Cond: e.Cond, Limit: e.Limit, At: int(e.At)}
	if e.Msg != nil {
		w.Type = TypeName(e.Msg)
		b, err := pe.encode(e.Msg)
		if err != nil {
			return fmt.Errorf("message %s: %w", w.Type, err)
		}
		w.Payload = b
	}
	return nil
}

// payloadEncoder encodes messages canonically (map entries sorted by key,
// so that equal messages give equal bytes whatever Go's map iteration
// order), reusing its buffer: the bytes it returns are valid until the next
// call.
type payloadEncoder struct {
	buf bytes.Buffer
	enc *msgpack.Encoder
}

func (pe *payloadEncoder) encode(m Message) ([]byte, error) {
	if pe.enc == nil {
		pe.enc = msgpack.NewEncoder(&pe.buf)
		pe.enc.SetSortMapKeys(true)
	}
	pe.buf.Reset()
	if err := pe.enc.Encode(m); err != nil {
		return nil, err
	}
	if b := pe.buf.Bytes(); hasMap(b) {
		return canonical(b)
	}
	return pe.buf.Bytes(), nil
}

// EncodeMessage returns the canonical msgpack encoding of a message, as a
// trace stores its payload: the entries of every map are sorted by their
// encoded keys, so two equal messages always encode to the same bytes.
func EncodeMessage(m Message) ([]byte, error) {
	var pe payloadEncoder
	return pe.encode(m)
}

// Reader decodes a trace file as a stream: the header first, then one event
// at a time, so a large trace need not be held in memory.
type Reader struct {
	br     *bufio.Reader
	raw    []byte       // the bytes of the record being decoded
	src    bytes.Reader // reads raw
	dec    *msgpack.Decoder
	header Header
	types  *MessageTypes
	sys    *System
	// members are the actors the header's options give the system: every
	// actor an event names must be one of them (or External as a sender).
	members map[ActorID]bool
	n       int
}

// NewReader reads the header from r and checks it against the catalog: the
// format version must match and the system must be known.
func NewReader(r io.Reader, cat *Catalog) (*Reader, error) {
	rd := &Reader{br: bufio.NewReader(r)}
	rd.dec = msgpack.NewDecoder(&rd.src)
	if err := rd.decode(&rd.header); err != nil {
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return nil, &FormatError{Event: -1, Err: errors.New("empty or truncated file")}
		}
		return nil, &FormatError{Event: -1, Err: fmt.Errorf("not a demi trace (%v)", err)}
	}
	h := &rd.header
	if h.Magic != magic {
		return nil, &FormatError{Event: -1, Err: errors.New("not a demi trace (missing magic)")}
	}
	if h.Format != FormatVersion {
		return nil, &FormatError{Event: -1, Err: fmt.Errorf("format version %d, this demi reads version %d", h.Format, FormatVersion)}
	}
	if h.EventCount < 0 {
		return nil, &FormatError{Event: -1, Err: fmt.Errorf("negative event count %d", h.EventCount)}
	}
	h.migrate()
	if v := h.Violation; v != nil && (v.Event < -1 || v.Event >= h.EventCount) {
		return nil, &FormatError{Event: -1, Err: fmt.Errorf("violation at event %d of %d", v.Event, h.EventCount)}
	}
	sys, err := cat.Lookup(h.System)
	if err != nil {
		return nil, &FormatError{Event: -1, Err: err}
	}
	opts, err := sys.Resolve(h.OptionMap())
	if err != nil {
		return nil, &FormatError{Event: -1, Err: err}
	}
	// The network is decided by the options; the header repeats it for
	// people, and must name one.
	if h.Network != FIFO.String() && h.Network != Unordered.String() {
		return nil, &FormatError{Event: -1, Err: fmt.Errorf("network %q (want %s or %s)", h.Network, FIFO, Unordered)}
	}
	types, err := sys.Types()
	if err != nil {
		return nil, err
	}
	rd.sys, rd.types = sys, types
	if sys.Members != nil {
		rd.members = map[ActorID]bool{}
		for _, id := range sys.Members(opts) {
			rd.members[id] = true
		}
	}
	return rd, nil
}

// decode reads the next msgpack value of the stream into v. The value is
// first scanned as bytes (bounded nesting and size, see scanValue), then
// decoded, so that no input can overflow the decoder's stack.
func (r *Reader) decode(v any) error {
	var err error
	r.raw, err = scanValue(r.br, r.raw[:0])
	if err != nil {
		return err
	}
	r.src.Reset(r.raw)
	r.dec.Reset(&r.src)
	return r.dec.Decode(v)
}

// Header returns the trace's header.
func (r *Reader) Header() Header { return r.header }

// System returns the trace's system.
func (r *Reader) System() *System { return r.sys }

// Next returns the next event, or io.EOF after the last one the header
// announced. A file that ends early or holds more is a FormatError.
func (r *Reader) Next() (Event, error) {
	if r.n >= r.header.EventCount {
		if _, err := r.br.Peek(1); err == nil {
			return Event{}, &FormatError{Event: r.n, Err: fmt.Errorf("trailing data after the %d events the header announces", r.header.EventCount)}
		}
		return Event{}, io.EOF
	}
	var w wireEvent
	if err := r.decode(&w); err != nil {
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return Event{}, &FormatError{Event: r.n, Err: fmt.Errorf("truncated: file ends after %d of %d events", r.n, r.header.EventCount)}
		}
		return Event{}, &FormatError{Event: r.n, Err: err}
	}
	e, err := r.fromWire(&w)
	if err != nil {
		return Event{}, &FormatError{Event: r.n, Err: err}
	}
	r.n++
	return e, nil
}

func (r *Reader) fromWire(w *wireEvent) (Event, error) {
	if w.Kind < Deliver || w.Kind > WaitCondition {
		return Event{}, fmt.Errorf("unknown event kind %d", w.Kind)
	}
	if w.Cause < -1 || w.Cause >= r.n {
		return Event{}, fmt.Errorf("causal link %d out of range", w.Cause)
	}
	e := Event{Kind: w.Kind, ID: w.ID, From: w.From, To: w.To, Timer: w.Timer, Cause: w.Cause,
		Actor: w.Actor, A: w.A, B: w.B, Cond: w.Cond, Limit: w.Limit, At: VirtualTime(w.At)}
	if (w.Kind == Deliver || w.Kind == Send) && w.Type == "" {
		return Event{}, fmt.Errorf("%s event without a message", w.Kind)
	}
	if err := r.checkActors(&e); err != nil {
		return Event{}, err
	}
	if w.Type != "" {
		t, ok := r.types.Lookup(w.Type)
		if !ok {
			return Event{}, fmt.Errorf("message type %q is not registered by system %s", w.Type, r.sys.Name)
		}
		ptr := t.Kind() == reflect.Pointer
		base := t
		if ptr {
			base = t.Elem()
		}
		v := reflect.New(base)
		if err := msgpack.Unmarshal(w.Payload, v.Interface()); err != nil {
			return Event{}, fmt.Errorf("message %s: %w", w.Type, err)
		}
		if ptr {
			e.Msg = v.Interface()
		} else {
			e.Msg = v.Elem().Interface()
		}
	}
	return e, nil
}

// checkActors checks that every actor e names is a member of the run (a
// sender may also be External): a malformed event is bad input for every command alike, found when the
// trace is read rather than when some command first applies it.
func (r *Reader) checkActors(e *Event) error {
	if r.members == nil {
		return nil
	}
	member := func(role string, id ActorID) error {
		if !r.members[id] {
			return fmt.Errorf("%s names %s %q, not a member of this %s run", e.Kind, role, string(id), r.sys.Name)
		}
		return nil
	}
	switch e.Kind {
	case Deliver:
		if e.From != External {
			if err := member("sender", e.From); err != nil {
				return err
			}
		}
		return member("receiver", e.To)
	case Send:
		return member("receiver", e.To)
	case Start, Kill, Restart:
		return member("actor", e.Actor)
	case Partition, Heal:
		for _, id := range append(slices.Clip(e.A), e.B...) {
			if err := member("actor", id); err != nil {
				return err
			}
		}
	}
	return nil
}

// Decode reads a whole trace and returns it with its system.
func Decode(r io.Reader, cat *Catalog) (*Trace, *System, error) {
	return DecodeContext(context.Background(), r, cat)
}

// DecodeContext is Decode that stops with ctx's error when ctx is done: it
// checks every 1,024 events, so that a long trace (seconds to read) does
// not hold up a cancellation.
func DecodeContext(ctx context.Context, r io.Reader, cat *Catalog) (*Trace, *System, error) {
	rd, err := NewReader(r, cat)
	if err != nil {
		return nil, nil, err
	}
	t := &Trace{Header: rd.Header()}
	// The header's count is a hint only up to a small size: a bogus count in
	// a short file must not allocate much (append grows for long traces).
	t.Events = make([]Event, 0, min(t.Header.EventCount, 1024))
	for {
		e, err := rd.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, nil, err
		}
		if len(t.Events)&1023 == 1023 {
			if err := ctx.Err(); err != nil {
				return nil, nil, err
			}
		}
		if len(t.Events) == cap(t.Events) { // double: append grows large slices by a quarter
			t.Events = slices.Grow(t.Events, len(t.Events))
		}
		t.Events = append(t.Events, e)
	}
	d, x := t.Header.Deliveries, t.Header.Externals
	t.Recount()
	if d != t.Header.Deliveries || x != t.Header.Externals {
		return nil, nil, &FormatError{Event: -1, Err: fmt.Errorf("header counts %d deliveries and %d externals, the events hold %d and %d", d, x, t.Header.Deliveries, t.Header.Externals)}
	}
	return t, rd.System(), nil
}

// ReadFile reads a trace file.
func ReadFile(path string, cat *Catalog) (*Trace, *System, error) {
	return ReadFileContext(context.Background(), path, cat)
}

// ReadFileContext is ReadFile that stops when ctx is done (see
// DecodeContext).
//
// Anything but a regular file (a FIFO, a device, a directory) is refused
// before it is read: a FIFO would block until some other process writes.
func ReadFileContext(ctx context.Context, path string, cat *Catalog) (*Trace, *System, error) {
	f, err := paths.OpenInput(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	t, sys, err := DecodeContext(ctx, f, cat)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	return t, sys, nil
}

// WriteFile writes the trace to path atomically: to a temporary file in the
// same directory, synced, then renamed over path.
func (t *Trace) WriteFile(path string) error {
	var buf bytes.Buffer
	if err := t.Encode(&buf); err != nil {
		return err
	}
	return WriteFileAtomic(path, buf.Bytes())
}

// WriteFileAtomic writes data to path through a temporary file and a rename,
// so that readers see either the old file or the whole new one.
func WriteFileAtomic(path string, data []byte) error {
	return writeThroughTemp(path, data, os.Rename)
}

// WriteFileNew is WriteFileAtomic for a file that must not exist yet: the
// temporary file is hard-linked to path, which never replaces a file (an
// existing path gives an error wrapping fs.ErrExist, even when another
// process created it after the caller checked).
func WriteFileNew(path string, data []byte) error {
	return writeThroughTemp(path, data, os.Link)
}

// writeThroughTemp writes data to a synced temporary file beside path and
// then puts it in place with place (a rename or a hard link).
func writeThroughTemp(path string, data []byte, place func(tmp, path string) error) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	defer os.Remove(tmp) // after a rename there is nothing left to remove
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp, 0o644)
	}
	if err == nil {
		err = place(tmp, path)
	}
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}
