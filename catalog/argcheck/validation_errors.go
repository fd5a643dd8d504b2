package argcheck

import (
	"errors"
	"fmt"
	"math/big"
	"sort"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"

	"demiurge.dev/catalog"
	"demiurge.dev/catalog/internal/jsonvalue"
)

// maxCollectedProblems bounds the work spent describing a bad call; only
// maxReportedProblems of them are shown anyway.
const maxCollectedProblems = 20

// argumentError turns the validator's error tree into short problems, one
// per thing the model has to change.
func (c *Checker) argumentError(args map[string]any, err error) error {
	var verr *jsonschema.ValidationError
	if !errors.As(err, &verr) {
		return argError("", "arguments are invalid: "+err.Error())
	}
	r := reporter{root: args, view: expandView(c.compiled), seen: map[string]bool{}}
	r.walk(verr)
	if len(r.problems) == 0 { // cannot happen for a failed validation; fail closed anyway
		return argError("", "arguments do not match the tool's schema")
	}
	sort.SliceStable(r.problems, func(i, j int) bool {
		a, b := r.problems[i], r.problems[j]
		if a.Path != b.Path {
			return a.Path < b.Path
		}
		return a.Message < b.Message
	})
	return &catalog.ArgumentError{Problems: r.problems}
}

type reporter struct {
	root     map[string]any
	view     view
	problems []catalog.ArgumentProblem
	seen     map[string]bool
}

func (r *reporter) add(path, msg string) {
	if r.seen[msg] || len(r.problems) >= maxCollectedProblems {
		return
	}
	r.seen[msg] = true
	r.problems = append(r.problems, catalog.ArgumentProblem{Path: path, Message: msg})
}

// walk descends through grouping nodes to the errors that say what is
// wrong; anyOf and oneOf are judged as a whole.
func (r *reporter) walk(e *jsonschema.ValidationError) {
	switch k := e.ErrorKind.(type) {
	case *kind.Schema, *kind.Group, *kind.Reference, *kind.AllOf:
		for _, c := range e.Causes {
			r.walk(c)
		}
	case *kind.AnyOf:
		r.alternatives(e)
	case *kind.OneOf:
		if len(k.Subschemas) > 1 {
			p := formatPath(r.root, e.InstanceLocation)
			r.add(p, fmt.Sprintf("%s matches more than one allowed form (alternatives %d and %d); make it match exactly one",
				argumentLabel(p), k.Subschemas[0], k.Subschemas[1]))
			return
		}
		r.alternatives(e)
	default:
		r.leaf(e)
	}
}

// alternatives reports an anyOf/oneOf that no branch matched. Branches the
// value's type rules out entirely are set aside; if exactly one branch is
// left, its own errors are the useful ones. Otherwise the message lists the
// types that would have been accepted.
func (r *reporter) alternatives(e *jsonschema.ValidationError) {
	p := formatPath(r.root, e.InstanceLocation)
	var near []*jsonschema.ValidationError
	var wanted []string
	for _, branch := range e.Causes {
		if want, ok := typeMismatchAt(branch, len(e.InstanceLocation)); ok {
			wanted = append(wanted, want...)
			continue
		}
		near = append(near, branch)
	}
	switch {
	case len(near) == 1:
		r.walk(near[0])
	case len(near) == 0 && len(wanted) > 0:
		v := valueAt(r.root, e.InstanceLocation)
		r.add(p, fmt.Sprintf("%s: expected %s, got %s", argumentLabel(p), orList(dedupe(wanted)), describe(v)))
	default:
		r.add(p, argumentLabel(p)+" does not match any of the allowed forms; check its description")
	}
}

// typeMismatchAt reports whether a branch failed only because the value at
// the branch's own location has the wrong type, and which types it wanted.
func typeMismatchAt(e *jsonschema.ValidationError, depth int) ([]string, bool) {
	switch k := e.ErrorKind.(type) {
	case *kind.Type:
		return k.Want, len(e.InstanceLocation) == depth
	case *kind.Group, *kind.Schema, *kind.Reference, *kind.AllOf:
		var want []string
		for _, c := range e.Causes {
			w, ok := typeMismatchAt(c, depth)
			if !ok {
				return nil, false
			}
			want = append(want, w...)
		}
		return want, len(e.Causes) > 0
	}
	return nil, false
}

func (r *reporter) leaf(e *jsonschema.ValidationError) {
	loc := e.InstanceLocation
	p := formatPath(r.root, loc)
	label := argumentLabel(p)
	v := valueAt(r.root, loc)
	switch k := e.ErrorKind.(type) {
	case *kind.Type:
		r.add(p, fmt.Sprintf("%s: expected %s, got %s", label, orList(k.Want), describe(v)))
	case *kind.Required:
		for _, m := range k.Missing {
			c := joinPath(p, m, false)
			r.add(c, fmt.Sprintf("missing required argument '%s'", c))
		}
	case *kind.AdditionalProperties:
		known := r.view.at(r.root, loc).propertyNames()
		obj, _ := v.(map[string]any)
		names := append([]string(nil), k.Properties...)
		sort.Strings(names)
		r.unknown(p, names, known, obj)
	case *kind.FalseSchema:
		r.add(p, label+" is not allowed; remove it")
	case *kind.Enum:
		r.add(p, fmt.Sprintf("%s: expected one of %s, got %s", label, valueList(k.Want), describe(v)))
	case *kind.Const:
		r.add(p, fmt.Sprintf("%s: must be %s, got %s", label, preview(k.Want), describe(v)))
	case *kind.Minimum:
		r.add(p, fmt.Sprintf("%s: must be at least %s, got %s", label, ratText(k.Want), ratText(k.Got)))
	case *kind.Maximum:
		r.add(p, fmt.Sprintf("%s: must be at most %s, got %s", label, ratText(k.Want), ratText(k.Got)))
	case *kind.ExclusiveMinimum:
		r.add(p, fmt.Sprintf("%s: must be greater than %s, got %s", label, ratText(k.Want), ratText(k.Got)))
	case *kind.ExclusiveMaximum:
		r.add(p, fmt.Sprintf("%s: must be less than %s, got %s", label, ratText(k.Want), ratText(k.Got)))
	case *kind.MultipleOf:
		r.add(p, fmt.Sprintf("%s: must be a multiple of %s, got %s", label, ratText(k.Want), ratText(k.Got)))
	case *kind.MinLength:
		r.add(p, fmt.Sprintf("%s: must be at least %d characters long, got %d", label, k.Want, k.Got))
	case *kind.MaxLength:
		r.add(p, fmt.Sprintf("%s: must be at most %d characters long, got %d; shorten it", label, k.Want, k.Got))
	case *kind.Pattern:
		r.add(p, fmt.Sprintf("%s: must match the pattern %s, got %s", label, k.Want, describe(v)))
	case *kind.MinItems:
		r.add(p, fmt.Sprintf("%s: must have at least %d items, got %d", label, k.Want, k.Got))
	case *kind.MaxItems:
		r.add(p, fmt.Sprintf("%s: must have at most %d items, got %d; send fewer", label, k.Want, k.Got))
	case *kind.UniqueItems:
		r.add(p, fmt.Sprintf("%s: items [%d] and [%d] are equal; give each item once", label, k.Duplicates[0], k.Duplicates[1]))
	case *kind.MinProperties:
		r.add(p, fmt.Sprintf("%s: must have at least %d entries, got %d", label, k.Want, k.Got))
	case *kind.MaxProperties:
		r.add(p, fmt.Sprintf("%s: must have at most %d entries, got %d", label, k.Want, k.Got))
	case *kind.DependentRequired:
		r.dependent(p, k.Prop, k.Missing)
	case *kind.Dependency:
		r.dependent(p, k.Prop, k.Missing)
	case *kind.Format:
		r.add(p, fmt.Sprintf("%s: expected %s format, got %s", label, k.Want, describe(v)))
	case *kind.Not:
		r.add(p, label+" has a form that is not allowed; check its description")
	default:
		r.add(p, label+": "+e.ErrorKind.LocalizedString(englishPrinter()))
	}
}

// englishPrinter is made on first use: only an unusual validation error
// needs it.
var englishPrinter = sync.OnceValue(func() *message.Printer { return message.NewPrinter(language.English) })

// maxSuggestName skips suggestions for absurd names: the edit distance is
// quadratic and nothing that long was a typo.
const maxSuggestName = 64

// unknown reports arguments the schema does not declare. Each gets the
// declared name it most resembles among those not already given; the rest
// are named together with the list of allowed names.
func (r *reporter) unknown(parent string, names []string, known []string, given map[string]any) {
	var candidates []string
	for _, k := range known {
		if _, ok := given[k]; !ok {
			candidates = append(candidates, k)
		}
	}
	var rest []string
	for _, name := range names {
		c := joinPath(parent, name, false)
		if len(name) <= maxSuggestName {
			if s := catalog.Suggest(name, candidates); s != "" {
				r.add(c, fmt.Sprintf("unknown argument '%s' (did you mean '%s'?)", c, joinPath(parent, s, false)))
				continue
			}
		}
		rest = append(rest, "'"+c+"'")
	}
	if len(rest) == 0 {
		return
	}
	first := strings.Trim(rest[0], "'")
	noun := "argument"
	if len(rest) > 1 {
		noun = "arguments"
	}
	listed := strings.Join(firstN(rest, 5), ", ")
	if len(known) == 0 {
		r.add(first, fmt.Sprintf("unknown %s %s; none are accepted here", noun, listed))
		return
	}
	sort.Strings(known)
	r.add(first, fmt.Sprintf("unknown %s %s; allowed: %s", noun, listed, strings.Join(firstN(known, 12), ", ")))
}

func (r *reporter) dependent(p, prop string, missing []string) {
	for _, m := range missing {
		c := joinPath(p, m, false)
		r.add(c, fmt.Sprintf("missing argument '%s', required when '%s' is given", c, joinPath(p, prop, false)))
	}
}

// describe names a value's type and, for scalars, shows it.
func describe(v any) string {
	switch v.(type) {
	case map[string]any, []any:
		return jsonvalue.Kind(v)
	case nil:
		return "null"
	}
	return jsonvalue.Kind(v) + " " + preview(v)
}

func orList(items []string) string {
	switch len(items) {
	case 0:
		return "nothing"
	case 1:
		return items[0]
	}
	return strings.Join(items[:len(items)-1], ", ") + " or " + items[len(items)-1]
}

func valueList(vals []any) string {
	parts := make([]string, 0, len(vals))
	for i, v := range vals {
		if i == 10 {
			parts = append(parts, "…")
			break
		}
		parts = append(parts, preview(v))
	}
	return strings.Join(parts, ", ")
}

func ratText(r *big.Rat) string {
	if r == nil {
		return "?"
	}
	if r.IsInt() {
		return r.RatString()
	}
	return strings.TrimRight(strings.TrimRight(r.FloatString(6), "0"), ".")
}

func dedupe(items []string) []string {
	seen := map[string]bool{}
	out := items[:0:0]
	for _, it := range items {
		if !seen[it] {
			seen[it] = true
			out = append(out, it)
		}
	}
	return out
}

func firstN(items []string, n int) []string {
	if len(items) > n {
		return append(items[:n:n], "…")
	}
	return items
}
