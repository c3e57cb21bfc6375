package record

import (
	"reflect"
	"slices"
	"sort"
	"sync"
	"unsafe"

	"google.golang.org/protobuf/proto"
)

// Storage is an actor's stable storage: what survives its crash-restarts,
// the disk of a real deployment. It keeps copies: Put stores a deep copy of
// the value and Get returns a deep copy of what is stored, so a restarted
// incarnation shares no memory with the one that crashed (a pointer kept
// in a crashed actor's fields cannot reach the new one's state), and an
// actor that changes a value after storing it does not change what is
// stored. Protocol buffer messages (proto.Message) are copied with
// proto.Clone; other values field by field, unexported fields included.
// Functions and channels cannot be copied and are shared.
type Storage map[string]any

// Get returns a copy of the value stored under key.
func (s Storage) Get(key string) (any, bool) {
	v, ok := s[key]
	if !ok {
		return nil, false
	}
	return deepCopy(v), true
}

// Put stores a copy of v under key.
func (s Storage) Put(key string, v any) { s[key] = deepCopy(v) }

// Delete removes key.
func (s Storage) Delete(key string) { delete(s, key) }

// StoredView is read-only access to one actor's stable storage, for
// invariants and display (see View.Storage). It is how a system checks
// ghost state that it keeps in stable storage (for example the terms each
// member led), including that of actors that are down.
type StoredView struct{ s Storage }

// Get returns the value stored under key. It is the stored value itself,
// not a copy: do not modify it.
func (v StoredView) Get(key string) (any, bool) {
	x, ok := v.s[key]
	return x, ok
}

// Keys returns the stored keys, sorted.
func (v StoredView) Keys() []string {
	ks := make([]string, 0, len(v.s))
	for k := range v.s {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// Storage returns read-only access to actor id's stable storage (empty for
// an unknown actor). It survives the actor's crashes and kills.
func (v View) Storage(id ActorID) StoredView {
	if i, ok := v.s.index[id]; ok {
		return StoredView{v.s.slots[i].storage}
	}
	return StoredView{}
}

// deepCopy returns a copy of x that shares no memory with it.
func deepCopy(x any) any {
	switch t := x.(type) {
	case nil, bool, string, int, int64, uint64, int32, uint32, float64, ActorID:
		return x
	case []byte:
		return slices.Clone(t)
	case []string:
		return slices.Clone(t)
	case []uint64:
		return slices.Clone(t)
	case []int:
		return slices.Clone(t)
	case [][]byte:
		return cloneBytesList(t)
	case proto.Message:
		return proto.Clone(t)
	case DeepCopier:
		return t.DeepCopy()
	}
	return reflectCopy(x)
}

// cloneBytesList copies a list of byte slices (a log of encoded records,
// rewritten on every append) with two allocations, not one per record: the
// copies share one new array, each capped at its own length so that an
// append to one cannot write into the next. A nil list or record stays nil,
// an empty one stays empty.
func cloneBytesList(t [][]byte) [][]byte {
	if t == nil {
		return nil
	}
	n := 0
	for _, b := range t {
		n += len(b)
	}
	buf := make([]byte, 0, n)
	c := make([][]byte, len(t))
	for i, b := range t {
		if b == nil {
			continue
		}
		start := len(buf)
		buf = append(buf, b...)
		c[i] = buf[start:len(buf):len(buf)]
	}
	return c
}

// reflectCopy copies x field by field by reflection, keeping shared and
// cyclic structures shared.
func reflectCopy(x any) any {
	c, _ := reflectCopyShares(x)
	return c
}

// reflectCopyShares is reflectCopy that also returns the type of the first
// function or channel value the copy shares with x (nil if none).
func reflectCopyShares(x any) (any, reflect.Type) {
	src := reflect.New(reflect.TypeOf(x)).Elem()
	src.Set(reflect.ValueOf(x))
	dst := reflect.New(src.Type()).Elem()
	c := copier{seen: getSeen()}
	defer putSeen(c.seen)
	c.copy(dst, src)
	return dst.Interface(), c.shares
}

// seenMaps holds emptied seen maps (see copier) for the next copies: a
// fork copies an actor of hundreds of pointers at every step, and growing
// a new map to that size was a fifth of the copy.
var seenMaps = sync.Pool{New: func() any { return make(map[uintptr]reflect.Value, 256) }}

// maxSeen bounds the maps seenMaps keeps: clearing one costs its
// capacity, which one large copy would leave to every small one after.
const maxSeen = 1 << 12

func getSeen() map[uintptr]reflect.Value { return seenMaps.Get().(map[uintptr]reflect.Value) }

func putSeen(m map[uintptr]reflect.Value) {
	if len(m) > maxSeen {
		return
	}
	clear(m)
	seenMaps.Put(m)
}

var protoMessage = reflect.TypeFor[proto.Message]()

// copier copies values by reflection; seen maps a source pointer to its
// copy, so shared and cyclic structures stay shared and terminate. shares
// is the type of the first function or channel it met, which the copy
// shares with the original.
type copier struct {
	seen   map[uintptr]reflect.Value
	shares reflect.Type
	// rebind makes a method value bound to a pointer the copy has copied
	// run on the copy (see CopyOnto); otherwise functions are shared.
	rebind bool
	// clone, if not nil, clones the protocol buffer messages it can (see
	// CopyOntoCloning); proto.Clone clones the others.
	clone func(proto.Message) proto.Message
}

// cloneProto returns a clone of protocol buffer message m.
func (c *copier) cloneProto(m proto.Message) proto.Message {
	if c.clone != nil {
		if x := c.clone(m); x != nil {
			return x
		}
	}
	return proto.Clone(m)
}

// isProto reports whether v, a readable pointer, is a protocol buffer
// message: a type assertion, which the runtime answers from its cache,
// where reflect's Implements scans the type's methods on every call.
func isProto(v reflect.Value) bool {
	_, ok := v.Interface().(proto.Message)
	return ok
}

// open makes an addressable value settable and readable even if it was
// reached through an unexported field.
func open(v reflect.Value) reflect.Value {
	if v.CanSet() {
		return v
	}
	return reflect.NewAt(v.Type(), unsafe.Pointer(v.UnsafeAddr())).Elem()
}

// copy sets dst (addressable) to a deep copy of src (addressable).
func (c *copier) copy(dst, src reflect.Value) {
	dst, src = open(dst), open(src)
	switch src.Kind() {
	case reflect.Pointer:
		if src.IsNil() {
			return
		}
		if isProto(src) {
			// One clone of a message held in several places (a log's
			// entries, held by the log and by a mirror of it), shared by
			// the copy as the original shares it.
			if p, ok := c.seen[src.Pointer()]; ok && p.Type() == src.Type() {
				dst.Set(p)
				return
			}
			p := reflect.ValueOf(c.cloneProto(src.Interface().(proto.Message)))
			c.seen[src.Pointer()] = p
			dst.Set(p)
			return
		}
		if p, ok := c.seen[src.Pointer()]; ok && p.Type() == src.Type() {
			dst.Set(p)
			return
		}
		p := reflect.New(src.Type().Elem())
		c.seen[src.Pointer()] = p
		c.copy(p.Elem(), src.Elem())
		dst.Set(p)
	case reflect.Struct:
		// The fields without references at once, the others one by one.
		dst.Set(src)
		for _, i := range refFields(src.Type()) {
			c.copy(dst.Field(i), src.Field(i))
		}
	case reflect.Slice:
		if src.IsNil() {
			return
		}
		s := reflect.MakeSlice(src.Type(), src.Len(), src.Len())
		if flat(src.Type().Elem(), 0) {
			// Elements without references (a Raft log of {Term, Cmd}
			// entries): one copy, not one reflective Set per field. A log
			// persisted after every message would otherwise make a long
			// run quadratic in reflection.
			reflect.Copy(s, src)
		} else {
			for i := range src.Len() {
				c.copy(s.Index(i), src.Index(i))
			}
		}
		dst.Set(s)
	case reflect.Array:
		for i := range src.Len() {
			c.copy(dst.Index(i), src.Index(i))
		}
	case reflect.Map:
		if src.IsNil() {
			return
		}
		m := reflect.MakeMapWithSize(src.Type(), src.Len())
		// Keys and values without references are set as they are (a map
		// stores its own copy of them), the others copied deeply.
		flatKey, flatElem := flat(src.Type().Key(), 0), flat(src.Type().Elem(), 0)
		it := src.MapRange()
		for it.Next() {
			k, v := it.Key(), it.Value()
			if !flatKey {
				k = reflect.New(src.Type().Key()).Elem()
				c.copy(k, addressable(it.Key()))
			}
			if !flatElem {
				v = reflect.New(src.Type().Elem()).Elem()
				c.copy(v, addressable(it.Value()))
			}
			m.SetMapIndex(k, v)
		}
		dst.Set(m)
	case reflect.Interface:
		if src.IsNil() {
			return
		}
		e := src.Elem()
		if flat(e.Type(), 0) {
			// A value without references, boxed: nothing can change the
			// box, so the copy may hold the same one.
			dst.Set(src)
			return
		}
		v := reflect.New(e.Type()).Elem()
		c.copy(v, addressable(e))
		dst.Set(v)
	default: // scalars, strings (immutable), funcs, channels
		if src.Kind() == reflect.Func && c.rebind && !src.IsNil() {
			if f, ok := c.rebound(src); ok {
				dst.Set(f)
				return
			}
			if !boundFunc(src) { // a top-level function holds no state
				dst.Set(src)
				return
			}
		}
		if k := src.Kind(); (k == reflect.Func || k == reflect.Chan) && !src.IsNil() && c.shares == nil {
			c.shares = src.Type()
		}
		dst.Set(src)
	}
}

// addressable returns an addressable copy of v (map keys and values and
// interface contents are not addressable).
func addressable(v reflect.Value) reflect.Value {
	a := reflect.New(v.Type()).Elem()
	open(a).Set(v)
	return a
}

// refFieldsOf caches refFields by struct type.
var refFieldsOf sync.Map

// refFields returns the indices of the fields of struct type t that are
// not scalar (see scalar): those a deep copy must follow.
func refFields(t reflect.Type) []int {
	if f, ok := refFieldsOf.Load(t); ok {
		return f.([]int)
	}
	var f []int
	for i := range t.NumField() {
		if !scalar(t.Field(i).Type.Kind()) {
			f = append(f, i)
		}
	}
	refFieldsOf.Store(t, f)
	return f
}

// scalar reports whether values of kind k hold no references: booleans,
// numbers and strings (immutable).
func scalar(k reflect.Kind) bool {
	switch k {
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64, reflect.Complex64, reflect.Complex128, reflect.String:
		return true
	}
	return false
}

// flat reports whether values of type t hold no references that a deep
// copy must follow: booleans, numbers, strings (immutable) and arrays and
// structs of those. Copying such a value bit by bit is a deep copy.
func flat(t reflect.Type, depth int) bool {
	if depth > 8 {
		return false
	}
	switch t.Kind() {
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64, reflect.Complex64, reflect.Complex128, reflect.String:
		return true
	case reflect.Array:
		return flat(t.Elem(), depth+1)
	case reflect.Struct:
		for i := range t.NumField() {
			if !flat(t.Field(i).Type, depth+1) {
				return false
			}
		}
		return true
	}
	return false
}
