package catalog

import (
	"encoding/json"
	"errors"
	"sync/atomic"
)

// ArgChecker coerces and validates one tool's arguments against its
// compiled input schema. Errors a model can act on are *ArgumentError.
type ArgChecker interface {
	Coerce(args json.RawMessage) (map[string]any, error)
}

// SchemaCompiler compiles a parsed schema document (numbers as
// json.Number, root already checked to be an object schema) into an
// argument checker. Its error is shown as is, after the tool's name.
type SchemaCompiler func(doc any) (ArgChecker, error)

// The compiler is registered, not passed to Resolve, so that the catalog
// package stays free of the JSON Schema library (whose package init alone
// costs the fast tools-list path ~10 ms) while every binary that can call
// a tool compiles schemas without each Resolve caller having to remember
// it: the package that calls Coerce (dispatch) imports
// demiurge.dev/catalog/argcheck for its side effect, as database/sql
// drivers are imported. A binary without it can list and describe tools,
// and Coerce there fails closed.
var compiler atomic.Pointer[SchemaCompiler]

// RegisterSchemaCompiler makes every later CompileSchema and Resolve
// compile schemas with c. It panics when c is nil or a compiler is already
// registered, so that two compilers cannot silently replace each other.
func RegisterSchemaCompiler(c SchemaCompiler) {
	if c == nil {
		panic("catalog: RegisterSchemaCompiler with a nil compiler")
	}
	if !compiler.CompareAndSwap(nil, &c) {
		panic("catalog: a schema compiler is already registered")
	}
}

func registeredCompiler() SchemaCompiler {
	if p := compiler.Load(); p != nil {
		return *p
	}
	return nil
}

// ErrSchemaNotCompiled is Coerce's error in a binary without a schema
// compiler: arguments are never passed on unchecked.
var ErrSchemaNotCompiled = errors.New("the tool's input schema was not compiled (this binary links no schema compiler), so its arguments cannot be checked; the call is refused")

// Coerce parses a model's JSON arguments, repairs what the schema makes
// unambiguous, and validates the result (see argcheck). Without a
// compiled schema it fails closed with ErrSchemaNotCompiled.
func (s *Schema) Coerce(args json.RawMessage) (map[string]any, error) {
	if s.checker == nil {
		return nil, ErrSchemaNotCompiled
	}
	return s.checker.Coerce(args)
}

// Checker is the compiled argument checker, nil when none was compiled.
func (s *Schema) Checker() ArgChecker { return s.checker }
