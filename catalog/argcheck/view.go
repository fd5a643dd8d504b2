package argcheck

import (
	"encoding/json"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"demiurge.dev/catalog/internal/jsonvalue"
)

// A view is the set of compiled schemas that all apply to one value: a
// schema, what its $ref points to and its allOf members. Coercion and
// error reporting reason about views so that $ref and allOf are transparent.
type view []*jsonschema.Schema

// maxViewSize and maxViewDepth bound the walks over recursive schemas.
const (
	maxViewSize  = 64
	maxViewDepth = 8
)

func expandView(schemas ...*jsonschema.Schema) view {
	var out view
	seen := map[*jsonschema.Schema]bool{}
	var add func(s *jsonschema.Schema)
	add = func(s *jsonschema.Schema) {
		if s == nil || seen[s] || len(out) >= maxViewSize {
			return
		}
		seen[s] = true
		out = append(out, s)
		add(s.Ref)
		for _, a := range s.AllOf {
			add(a)
		}
	}
	for _, s := range schemas {
		add(s)
	}
	return out
}

// typeSet is a set of JSON types. tNum means any number; an integral value
// is tInt, and a schema that allows "number" allows both.
type typeSet uint8

const (
	tNull typeSet = 1 << iota
	tBool
	tInt
	tNum
	tStr
	tObj
	tArr

	tAll = tNull | tBool | tInt | tNum | tStr | tObj | tArr
)

var typeNames = map[string]typeSet{
	"null": tNull, "boolean": tBool, "integer": tInt, "number": tNum | tInt,
	"string": tStr, "object": tObj, "array": tArr,
}

func typeOf(v any) typeSet {
	switch t := v.(type) {
	case nil:
		return tNull
	case bool:
		return tBool
	case string:
		return tStr
	case json.Number:
		if jsonvalue.IsIntegral(t) {
			return tInt
		}
		return tNum
	case float64:
		return tNum
	case map[string]any:
		return tObj
	case []any:
		return tArr
	}
	return 0
}

// types over-approximates the JSON types a value may have to satisfy every
// schema of the view. A value whose type is outside the set is invalid for
// certain; that is what makes coercing it safe.
func (vw view) types(depth int) typeSet {
	if depth > maxViewDepth {
		return tAll
	}
	set := tAll
	for _, s := range vw {
		if s.Bool != nil && !*s.Bool {
			return 0
		}
		if s.Types != nil && !s.Types.IsEmpty() {
			var ts typeSet
			for _, n := range s.Types.ToStrings() {
				ts |= typeNames[n]
			}
			set &= ts
		}
		if s.Const != nil {
			set &= typeOf(*s.Const)
		}
		if s.Enum != nil {
			var ts typeSet
			for _, e := range s.Enum.Values {
				ts |= typeOf(e)
			}
			set &= ts
		}
		for _, group := range [][]*jsonschema.Schema{s.AnyOf, s.OneOf} {
			if len(group) == 0 {
				continue
			}
			var ts typeSet
			for _, b := range group {
				ts |= expandView(b).types(depth + 1)
			}
			set &= ts
		}
	}
	return set
}

// narrow adds, for each anyOf/oneOf in the view, the one branch that can
// hold a value of type t, when exactly one can: Optional[List[str]] is
// anyOf [array, null], and an array value then follows the array branch.
func (vw view) narrow(t typeSet) view {
	extra := []*jsonschema.Schema{}
	for _, s := range vw {
		for _, group := range [][]*jsonschema.Schema{s.AnyOf, s.OneOf} {
			var match *jsonschema.Schema
			n := 0
			for _, b := range group {
				if expandView(b).types(0)&t != 0 {
					match, n = b, n+1
				}
			}
			if n == 1 {
				extra = append(extra, match)
			}
		}
	}
	if len(extra) == 0 {
		return vw
	}
	return expandView(append(append([]*jsonschema.Schema{}, vw...), extra...)...)
}

// property returns the view for the value of key in an object.
func (vw view) property(key string) view {
	var sub []*jsonschema.Schema
	for _, s := range vw {
		matched := false
		if ps, ok := s.Properties[key]; ok {
			sub = append(sub, ps)
			matched = true
		}
		for re, ps := range s.PatternProperties {
			if re.MatchString(key) {
				sub = append(sub, ps)
				matched = true
			}
		}
		if !matched {
			if ap, ok := s.AdditionalProperties.(*jsonschema.Schema); ok {
				sub = append(sub, ap)
			}
		}
	}
	return expandView(sub...)
}

// item returns the view for the element at index i of an array.
func (vw view) item(i int) view {
	var sub []*jsonschema.Schema
	for _, s := range vw {
		switch {
		case i < len(s.PrefixItems):
			sub = append(sub, s.PrefixItems[i])
		case s.Items2020 != nil:
			sub = append(sub, s.Items2020)
		}
		switch items := s.Items.(type) { // drafts before 2020-12
		case *jsonschema.Schema:
			sub = append(sub, items)
		case []*jsonschema.Schema:
			if i < len(items) {
				sub = append(sub, items[i])
			} else if ai, ok := s.AdditionalItems.(*jsonschema.Schema); ok {
				sub = append(sub, ai)
			}
		}
	}
	return expandView(sub...)
}

// propertyNames lists the properties the view declares, for suggestions.
func (vw view) propertyNames() []string {
	seen := map[string]bool{}
	var names []string
	for _, s := range vw {
		for k := range s.Properties {
			if !seen[k] {
				seen[k] = true
				names = append(names, k)
			}
		}
	}
	return names
}

// at walks the view along an instance location through the value.
func (vw view) at(root any, loc []string) view {
	cur := root
	for _, seg := range loc {
		switch c := cur.(type) {
		case map[string]any:
			vw = vw.narrow(tObj).property(seg)
			cur = c[seg]
		case []any:
			i := indexOf(seg, len(c))
			if i < 0 {
				return nil
			}
			vw = vw.narrow(tArr).item(i)
			cur = c[i]
		default:
			return nil
		}
	}
	return vw.narrow(typeOf(cur))
}

// valueAt returns the value at an instance location.
func valueAt(root any, loc []string) any {
	cur := root
	for _, seg := range loc {
		switch c := cur.(type) {
		case map[string]any:
			cur = c[seg]
		case []any:
			i := indexOf(seg, len(c))
			if i < 0 {
				return nil
			}
			cur = c[i]
		default:
			return nil
		}
	}
	return cur
}

func indexOf(seg string, n int) int {
	i := 0
	if seg == "" {
		return -1
	}
	for _, r := range seg {
		if r < '0' || r > '9' {
			return -1
		}
		i = i*10 + int(r-'0')
		if i >= n {
			return -1
		}
	}
	return i
}
