package record

import (
	"fmt"
	"reflect"
	"runtime"
	"strings"
	"unsafe"

	"google.golang.org/protobuf/proto"
)

// CopyOnto sets *dst to a deep copy of *src, field by field, unexported
// fields included, as a fork copies an actor (see Sim.Fork), except for
// function values. It is how an actor that holds a library's state with
// function values in it (etcd raft's RawNode keeps a method value bound to
// itself) implements DeepCopier.
//
// dst and src must be non-nil pointers to one type. Where both hold a
// non-nil pointer (other than a protocol buffer message), the copy is made
// in the memory dst's points at, so a method value of dst's stays bound to
// the copy (dst is then a donor: a value the library built, holding the
// same functions). Everywhere else the copy is made as Fork makes it: new
// memory, shared and cyclic structures kept shared, protocol buffer
// messages cloned (once each: a message held in several places is one
// clone, held in the same places). Where dst holds no function, the copy holds src's if it
// is a top-level function (which holds no state), and a method value of
// src's with a pointer receiver that the copy copies is bound to the
// receiver's copy (so a fresh &T{} needs no donor). CopyOnto returns an
// error naming the first place where src holds a function that dst does not
// hold in the same place with the same code (a method value of the same
// method, the same function) and that it cannot bind so (a closure, a
// method value bound to memory outside the copy), or a channel: the copy
// would be wrong there, as it would share them with src.
func CopyOnto(dst, src any) error { return CopyOntoCloning(dst, src, nil) }

// CopyOntoCloning is CopyOnto with the protocol buffer messages it meets
// cloned by clone where clone returns one (nil: by proto.Clone). clone must
// return what proto.Clone would (a message equal to m in its own memory);
// it is for an actor whose state holds many messages of a few types, which
// a clone written for the type copies at a fraction of proto.Clone's cost.
func CopyOntoCloning(dst, src any, clone func(m proto.Message) proto.Message) error {
	d, s := reflect.ValueOf(dst), reflect.ValueOf(src)
	if d.Kind() != reflect.Pointer || d.IsNil() || s.Kind() != reflect.Pointer || s.IsNil() || d.Type() != s.Type() {
		return fmt.Errorf("record: CopyOnto(%T, %T): want two non-nil pointers to one type", dst, src)
	}
	c := copier{seen: getSeen(), rebind: true, clone: clone}
	defer putSeen(c.seen)
	c.seen[s.Pointer()] = d
	if err := c.onto(d.Elem(), s.Elem()); err != nil {
		return fmt.Errorf("record: CopyOnto %T: %w", src, err)
	}
	return nil
}

// ontoError is where (a path of fields) and why CopyOnto failed.
type ontoError struct{ path, why string }

func (e *ontoError) Error() string { return e.path + ": " + e.why }

// onto sets dst to a deep copy of src, in the memory of dst's pointers
// (see CopyOnto).
func (c *copier) onto(dst, src reflect.Value) error {
	dst, src = open(dst), open(src)
	switch src.Kind() {
	case reflect.Struct:
		for i := range src.NumField() {
			if err := c.onto(dst.Field(i), src.Field(i)); err != nil {
				err.(*ontoError).path = "." + src.Type().Field(i).Name + err.(*ontoError).path
				return err
			}
		}
		return nil
	case reflect.Pointer:
		if !src.IsNil() && !dst.IsNil() && !isProto(src) {
			if p, ok := c.seen[src.Pointer()]; ok {
				dst.Set(p)
				return nil
			}
			c.seen[src.Pointer()] = reflect.ValueOf(dst.Interface())
			return c.onto(dst.Elem(), src.Elem())
		}
	case reflect.Func:
		if src.IsNil() && dst.IsNil() {
			return nil
		}
		if dst.IsNil() {
			if f, ok := c.rebound(src); ok {
				dst.Set(f)
				return nil
			}
		}
		if src.IsNil() || dst.IsNil() || src.Pointer() != dst.Pointer() {
			return &ontoError{why: fmt.Sprintf("the copy holds function %s where the original holds %s", codeName(dst), codeName(src))}
		}
		return nil // dst's own (bound to dst's memory)
	}
	dst.SetZero() // copy leaves dst as it is where src is nil
	c.copy(dst, src)
	if c.shares != nil {
		return &ontoError{why: fmt.Sprintf("holds a %s value that dst does not hold in the same place", c.shares)}
	}
	return nil
}

// codeName names the function a func value runs ("nil" if none): for a
// method value, the method's name with the suffix "-fm".
func codeName(f reflect.Value) string {
	if f.IsNil() {
		return "nil"
	}
	if fn := runtime.FuncForPC(f.Pointer()); fn != nil {
		return fn.Name()
	}
	return "?"
}

// boundFunc reports whether a func value runs code that can hold state of
// its own: a method value (bound to its receiver) or a function literal
// (a closure, which may capture variables). A top-level function holds
// none, so a copy may share it.
func boundFunc(f reflect.Value) bool {
	name := codeName(f)
	if strings.HasSuffix(name, "-fm") {
		return true
	}
	i := strings.LastIndex(name, ".func")
	return i >= 0 && strings.Trim(name[i+len(".func"):], "0123456789.") == ""
}

// methodValue is how a method value with a pointer receiver is laid out: a
// closure holding the code of the method's wrapper (NAME-fm) and the
// receiver it is bound to. rebindable checks the layout once.
type methodValue struct {
	code uintptr
	recv unsafe.Pointer
}

// rebound returns method value f bound to the copy of its receiver, when f
// is a method value with a pointer receiver that the copy has copied (the
// receiver is in c.seen, as a pointer of the method's receiver type): the
// copy's method value then runs on the copy, as one the copy's own code
// had taken would. Otherwise it returns false.
func (c *copier) rebound(f reflect.Value) (reflect.Value, bool) {
	if !rebindable {
		return reflect.Value{}, false
	}
	cl := (*methodValue)(closure(f))
	p, ok := c.seen[uintptr(cl.recv)]
	if !ok || p.Kind() != reflect.Pointer || !pointerMethod(codeName(f), p.Type().Elem()) {
		return reflect.Value{}, false
	}
	return bind(f.Type(), cl.code, p.UnsafePointer()), true
}

// bind returns a func value of type t running code bound to recv.
func bind(t reflect.Type, code uintptr, recv unsafe.Pointer) reflect.Value {
	g := reflect.New(t)
	*(*unsafe.Pointer)(g.UnsafePointer()) = unsafe.Pointer(&methodValue{code: code, recv: recv})
	return g.Elem()
}

// pointerMethod reports whether name is the wrapper of a method value of a
// method of *t (as "pkg/path.(*T).M-fm").
func pointerMethod(name string, t reflect.Type) bool {
	prefix := t.PkgPath() + ".(*" + t.Name() + ")."
	return t.Name() != "" && strings.HasPrefix(name, prefix) && strings.HasSuffix(name, "-fm") &&
		!strings.Contains(name[len(prefix):], ".")
}

// rebindable reports whether method values are laid out as methodValue
// (a method value rebound by bind runs on its new receiver): CopyOnto
// rebinds them only then.
var rebindable = func() bool {
	a, b := &probe{}, &probe{}
	f := a.bump
	v := reflect.ValueOf(f)
	cl := (*methodValue)(closure(v))
	if cl.recv != unsafe.Pointer(a) || cl.code != v.Pointer() || !pointerMethod(codeName(v), reflect.TypeFor[probe]()) {
		return false
	}
	bind(v.Type(), cl.code, unsafe.Pointer(b)).Interface().(func())()
	return a.n == 0 && b.n == 1
}()

// probe is the receiver rebindable checks the layout with.
type probe struct{ n int }

func (p *probe) bump() { p.n++ }
