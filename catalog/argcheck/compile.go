// Package argcheck compiles tool input schemas with a JSON Schema validator
// and checks a model's arguments against them: coercion of unambiguous
// mistakes, validation, and errors a model can act on. Importing it
// registers its compiler with the catalog:
//
//	import _ "demiurge.dev/catalog/argcheck"
//
// It is kept out of package catalog because the validator's package
// initialisation compiles every draft's metaschemas, which a binary that
// only lists tools must not pay for.
package argcheck

import (
	"fmt"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"demiurge.dev/catalog"
)

func init() { catalog.RegisterSchemaCompiler(Compile) }

// schemaLocation is the in-memory URL the compiler files a schema under.
// Nothing is ever fetched from it.
const schemaLocation = "https://demiurge.invalid/input-schema.json"

// Checker is a compiled input schema. It is immutable and safe for
// concurrent use.
type Checker struct {
	compiled *jsonschema.Schema
	// simple is the schema's simple form, when it has one (see
	// simpleSchema): a value it certainly accepts skips the validator.
	simple *simpleSchema
	// doc is the schema document, for checkCost's walk.
	doc any
}

// Compile compiles a parsed schema document (see catalog.SchemaCompiler).
// Remote references are refused: resolution is pure and does no I/O.
func Compile(doc any) (catalog.ArgChecker, error) {
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.UseLoader(refuseLoader{})
	if err := c.AddResource(schemaLocation, doc); err != nil {
		return nil, fmt.Errorf("schema: %w", err)
	}
	compiled, err := c.Compile(schemaLocation)
	if err != nil {
		return nil, fmt.Errorf("schema does not compile: %w", err)
	}
	return &Checker{compiled: compiled, simple: compileSimple(doc, 0), doc: doc}, nil
}

// Validate checks a decoded value against the schema without coercing it.
// A check that would cost more than maxCheckVisits is refused.
func (c *Checker) Validate(v any) error {
	if err := checkCost(c.doc, v); err != nil {
		return err
	}
	return c.compiled.Validate(v)
}

// refuseLoader keeps schema compilation pure: a $ref to anything but the
// schema itself (or the embedded draft metaschemas) fails.
type refuseLoader struct{}

func (refuseLoader) Load(url string) (any, error) {
	return nil, fmt.Errorf("schema refers to %s: only references inside the schema itself (#/$defs/...) are allowed", url)
}
