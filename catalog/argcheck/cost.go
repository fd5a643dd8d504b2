package argcheck

import (
	"net/url"
	"reflect"
	"strconv"
	"strings"
)

// The validator (santhosh-tekuri/jsonschema) takes no context and keeps no
// memo: a definition that refers back to itself from two places in place
// (an anyOf of two alternatives, each with a $ref to it for the next
// level) is checked twice at each level of the arguments, two to the
// power of their depth (at most maxArgumentDepth) in all, on the host,
// before approval, with nothing able to stop it. So before the validator
// runs, checkCost counts the (subschema, value) pairs it would visit
// (every subschema that applies to a value, each $ref followed, every
// alternative taken: at least the validator's own work) with a memo, so
// that the count costs the distinct pairs only, and refuses arguments
// whose pairs would be visited more than maxRepeatVisits times beyond
// the first: ordinary schemas reach a pair once or a few times, whatever
// the arguments' size; a schema that branches in place, exponentially
// often.

// maxRepeatVisits bounds the visits of a check beyond the distinct pairs
// (the validator spends about 8 µs on a failing one: under a second).
const maxRepeatVisits = 100_000

// costWalk counts visits against the schema document it was compiled from.
type costWalk struct {
	root     any
	memo     map[pairKey]uint64 // the visits below a pair, itself included; 0 while on the path
	distinct uint64
	values   map[childKey]int // a value's identity: its parent's and its key
}

type pairKey struct {
	schema uintptr
	value  int
}

type childKey struct {
	parent, index int
	key           string
}

// saturated keeps the counts finite: past it the check is refused anyway.
const saturated = 1 << 50

// checkCost refuses arguments whose check would visit their pairs more
// than maxRepeatVisits times beyond the first.
func checkCost(doc any, args any) error {
	w := costWalk{root: doc, memo: map[pairKey]uint64{}, values: map[childKey]int{}}
	if total := w.count(doc, args, 0, 0); total <= w.distinct+maxRepeatVisits {
		return nil
	}
	return argError("", "the tool's input schema would check these arguments more than "+strconv.Itoa(maxRepeatVisits)+
		" times over (it branches at each level of their nesting); send flatter arguments")
}

func add(a, b uint64) uint64 { return min(a+b, saturated) }

// child is the identity of v's element at key or index.
func (w *costWalk) child(parent int, key string, index int) int {
	k := childKey{parent: parent, index: index, key: key}
	id, ok := w.values[k]
	if !ok {
		id = len(w.values) + 1
		w.values[k] = id
	}
	return id
}

// count is the visits the validator makes below schema s over value v
// (whose identity is vid), s included.
func (w *costWalk) count(s, v any, vid int, depth int) uint64 {
	m, ok := s.(map[string]any)
	if !ok || depth > 2*maxArgumentDepth+8 {
		return 1 // true, false: no work below
	}
	key := pairKey{schema: reflect.ValueOf(m).Pointer(), value: vid}
	if n, seen := w.memo[key]; seen {
		if n == 0 {
			return 1 // a $ref cycle in place: the compiler's or validator's own error
		}
		return n
	}
	w.memo[key] = 0
	w.distinct++
	total := uint64(1)
	same := func(sub any) { total = add(total, w.count(sub, v, vid, depth)) }
	below := func(sub, e any, eid int) { total = add(total, w.count(sub, e, eid, depth+1)) }
	for _, k := range []string{"$ref", "$dynamicRef", "$recursiveRef"} {
		if ref, ok := m[k].(string); ok {
			if t, ok := w.resolve(ref); ok {
				same(t)
			}
		}
	}
	for _, k := range []string{"allOf", "anyOf", "oneOf"} {
		if subs, ok := m[k].([]any); ok {
			for _, sub := range subs {
				same(sub)
			}
		}
	}
	for _, k := range []string{"not", "if", "then", "else"} {
		if sub, ok := m[k]; ok {
			same(sub)
		}
	}
	switch v := v.(type) {
	case map[string]any:
		if deps, ok := m["dependentSchemas"].(map[string]any); ok {
			for _, sub := range deps {
				same(sub)
			}
		}
		props, _ := m["properties"].(map[string]any)
		patterns, _ := m["patternProperties"].(map[string]any)
		for key, e := range v {
			eid := w.child(vid, key, -1)
			if sub, ok := props[key]; ok {
				below(sub, e, eid)
			}
			for _, sub := range patterns { // every pattern, matched or not: at least the validator's work
				below(sub, e, eid)
			}
			for _, k := range []string{"additionalProperties", "unevaluatedProperties"} {
				if sub, ok := m[k]; ok {
					below(sub, e, eid)
				}
			}
			if sub, ok := m["propertyNames"]; ok {
				below(sub, key, w.child(vid, key, -2))
			}
		}
	case []any:
		prefix, _ := m["prefixItems"].([]any)
		tuple, _ := m["items"].([]any) // drafts before 2020-12
		for i, e := range v {
			eid := w.child(vid, "", i)
			if i < len(prefix) {
				below(prefix[i], e, eid)
			}
			if i < len(tuple) {
				below(tuple[i], e, eid)
			}
			for _, k := range []string{"items", "additionalItems", "contains", "unevaluatedItems"} {
				if sub, ok := m[k]; ok {
					if _, isTuple := sub.([]any); !isTuple {
						below(sub, e, eid)
					}
				}
			}
		}
	}
	w.memo[key] = total
	return total
}

// resolve follows a reference to a JSON pointer inside the schema itself
// ("#/$defs/n", or any document part with that fragment: the loader
// refuses every document but the schema and the metaschemas); an anchor
// or a metaschema is not followed: the metaschemas are the compiler's own
// and do not branch in place.
func (w *costWalk) resolve(ref string) (any, bool) {
	doc, frag, ok := strings.Cut(ref, "#")
	if !ok || strings.Contains(doc, "json-schema.org/") {
		return nil, false
	}
	frag, err := url.PathUnescape(frag)
	if err != nil {
		return nil, false
	}
	v, ok := JSONPointer(w.root, frag)
	return v, ok && v != nil
}

// JSONPointer resolves pointer (RFC 6901, unescaped: "" for the whole
// document, "/a/b~1c/0") in a decoded JSON document; false when a token
// names nothing there.
func JSONPointer(doc any, pointer string) (any, bool) {
	if pointer == "" {
		return doc, true
	}
	if !strings.HasPrefix(pointer, "/") {
		return nil, false
	}
	cur := doc
	for _, tok := range strings.Split(pointer[1:], "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		switch c := cur.(type) {
		case map[string]any:
			next, ok := c[tok]
			if !ok {
				return nil, false
			}
			cur = next
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(c) {
				return nil, false
			}
			cur = c[i]
		default:
			return nil, false
		}
	}
	return cur, true
}
