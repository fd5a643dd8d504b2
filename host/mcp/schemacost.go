package mcp

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"demiurge.dev/catalog/argcheck"
)

// A tool's input schema is checked on the host, before approval, on every
// call, and the checker (santhosh-tekuri/jsonschema) takes no context:
// nothing ends a check once it runs. A schema that refers to one
// definition from two places in place (an anyOf of two $refs to the next
// definition, twenty deep: 2 KB) made one check of {"x":1} take 26 s on
// the host, and thirty deep would take hours. So a server's schema is
// followed here before it is offered: every subschema counted with each
// $ref followed (a $ref back into the definitions being followed is a
// recursion, bounded by the arguments' own depth, and counted once), and
// past maxSchemaExpansion the tool is left out. A reference this walk
// cannot follow ($dynamicRef, $recursiveRef, an anchor or another
// document, a pointer it cannot resolve, a $id below the root, which
// moves what "#/..." means) leaves the tool out too: what is not followed
// is not counted. A recursive definition that branches in place at each
// level would cost the check two to the power of the arguments' depth
// (at most 64): that is bounded at each call, where the arguments are
// known (catalog/argcheck's checkCost refuses them).

// maxSchemaExpansion bounds the subschemas a schema reaches with its
// $refs followed.
const maxSchemaExpansion = 100_000

var errSchemaTooCostly = errors.New("too costly")

// schemaCost says why raw cannot be offered; "" when it can.
func schemaCost(raw json.RawMessage) string {
	if len(raw) == 0 || !strings.Contains(string(raw), "$") {
		return ""
	}
	var root any
	if json.Unmarshal(raw, &root) != nil {
		return "" // CompileSchema refuses it
	}
	w := schemaWalk{root: root, following: map[string]bool{}}
	switch err := w.visit(root, true); {
	case err == nil:
		return ""
	case errors.Is(err, errSchemaTooCostly):
		return fmt.Sprintf("with its $refs followed it reaches more than %d subschemas, which the host would check on every call", maxSchemaExpansion)
	default:
		return err.Error()
	}
}

type schemaWalk struct {
	root      any
	following map[string]bool // the $ref targets being followed
	count     int
}

func (w *schemaWalk) visit(v any, atRoot bool) error {
	w.count++
	if w.count > maxSchemaExpansion {
		return errSchemaTooCostly
	}
	switch v := v.(type) {
	case []any:
		for _, e := range v {
			if err := w.visit(e, false); err != nil {
				return err
			}
		}
	case map[string]any:
		for _, k := range []string{"$dynamicRef", "$recursiveRef", "$anchor", "$dynamicAnchor", "$recursiveAnchor"} {
			if _, ok := v[k].(string); ok {
				return fmt.Errorf("it uses %s, which the host does not follow", k)
			}
		}
		if _, ok := v["$id"].(string); ok && !atRoot {
			return errors.New("it has a $id below its root, which the host does not follow")
		}
		for _, e := range v {
			if err := w.visit(e, false); err != nil {
				return err
			}
		}
		if ref, ok := v["$ref"].(string); ok {
			return w.follow(ref)
		}
	}
	return nil
}

// follow visits what ref points to: a JSON pointer into the root.
func (w *schemaWalk) follow(ref string) error {
	if ref != "#" && !strings.HasPrefix(ref, "#/") {
		return fmt.Errorf("its $ref %q is not a pointer into the schema itself (#/...), which the host does not follow", clip(ref))
	}
	if w.following[ref] {
		return nil // a recursion: counted where it started
	}
	target, ok := argcheck.JSONPointer(w.root, strings.TrimPrefix(ref, "#"))
	if !ok {
		// Unresolved here (a percent-encoded pointer, say) but maybe
		// resolved by the checker: not followed, so not offered.
		return fmt.Errorf("its $ref %q does not point into the schema as the host reads it", clip(ref))
	}
	w.following[ref] = true
	defer delete(w.following, ref)
	return w.visit(target, ref == "#")
}
