package record

import (
	"fmt"
	"reflect"
	"runtime"
	"strings"
)

// CopyOnto sets *dst to a deep copy of *src, field by field, unexported
// fields included, as a fork copies an actor (see Sim.Fork), except for
// function values: those stay dst's. It is how an actor that holds a
// library's state with function values in it (etcd raft's RawNode keeps
// a method value bound to itself) implements DeepCopier: build a fresh
// value through the library's own API, in a state that holds the same
// functions (dst, the donor), then copy the original's state onto it.
//
// dst and src must be non-nil pointers to one type. Where both hold a
// non-nil pointer (other than a protocol buffer message), the copy is made
// in the memory dst's points at, so a method value of dst's stays bound to
// the copy. Everywhere else the copy is made as Fork makes it: new memory,
// shared and cyclic structures kept shared, protocol buffer messages
// cloned. CopyOnto returns an error naming the first place where src holds
// a function that dst does not hold in the same place with the same code
// (a method value of the same method, the same function), or a channel:
// the copy would be wrong there, as it would share them with src.
func CopyOnto(dst, src any) error {
	d, s := reflect.ValueOf(dst), reflect.ValueOf(src)
	if d.Kind() != reflect.Pointer || d.IsNil() || s.Kind() != reflect.Pointer || s.IsNil() || d.Type() != s.Type() {
		return fmt.Errorf("record: CopyOnto(%T, %T): want two non-nil pointers to one type", dst, src)
	}
	c := copier{seen: map[uintptr]reflect.Value{}}
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
		if !src.IsNil() && !dst.IsNil() && !src.Type().Implements(protoMessage) {
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
