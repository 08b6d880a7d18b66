package ast

import (
	"reflect"

	"github.com/ptxkit/ptxkit/ptx/token"
)

var (
	posType  = reflect.TypeOf(token.Pos{})
	spanType = reflect.TypeOf(Span{})
)

// Equal reports whether the trees a and b are the same apart from
// positions: every field is compared except Pos/End spans, the Filename of
// a module and Address.HasOffset when the offset is zero (the printer
// writes "[%r1+0]" as "[%r1]"). It is the equality behind the guarantee
// that parsing printed output gives back the parsed tree.
func Equal(a, b Node) bool {
	return equalValue(reflect.ValueOf(a), reflect.ValueOf(b))
}

func equalValue(a, b reflect.Value) bool {
	if a.IsValid() != b.IsValid() {
		return false
	}
	if !a.IsValid() {
		return true
	}
	if a.Type() != b.Type() {
		return false
	}
	switch a.Kind() {
	case reflect.Interface, reflect.Pointer:
		if a.IsNil() || b.IsNil() {
			return a.IsNil() == b.IsNil()
		}
		return equalValue(a.Elem(), b.Elem())
	case reflect.Slice:
		if a.Len() != b.Len() {
			return false
		}
		for i := 0; i < a.Len(); i++ {
			if !equalValue(a.Index(i), b.Index(i)) {
				return false
			}
		}
		return true
	case reflect.Struct:
		return equalStruct(a, b)
	}
	return a.Interface() == b.Interface()
}

func equalStruct(a, b reflect.Value) bool {
	t := a.Type()
	if t == posType || t == spanType {
		return true
	}
	addr, isAddr := a.Interface().(Address)
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		switch {
		case t == reflect.TypeOf(Module{}) && f.Name == "Filename":
			continue
		case isAddr && f.Name == "HasOffset" && addr.Offset == 0:
			continue
		}
		if !equalValue(a.Field(i), b.Field(i)) {
			return false
		}
	}
	return true
}
