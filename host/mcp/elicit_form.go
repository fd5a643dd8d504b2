package mcp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"demiurge.dev/host/approval"
)

// Bounds of a form an upstream server asks for (elicitation/create): a
// larger or stranger form is declined without asking anyone.
const (
	maxFormSchemaBytes = 16 << 10
	maxFormFields      = 16
	maxFormName        = 64
	maxFormEnum        = 32
	maxFormString      = 256 // bytes of a string default or enum value
	// What the card shows of the server's own words.
	maxFormMessage = 300 // runes
	maxFormText    = 80  // runes of a field's title or description
)

// formField is one property of a requested schema, as the spec restricts
// them: flat, of a primitive type (or an array of enum strings).
type formField struct {
	name, typ string
	text      string // title and description
	enum      []string
	def       any // the declared default, decoded; nil when none
	required  bool
}

// form is a requested schema Demiurge can answer: its fields sorted by
// name, each required one with a default.
type form struct {
	fields []formField
	raw    []byte // the schema as JSON, for the fingerprint
}

// propertySchema is what Demiurge reads of one property.
type propertySchema struct {
	Type        string          `json:"type"`
	Title       string          `json:"title"`
	Description string          `json:"description"`
	Enum        []any           `json:"enum"`
	OneOf       []enumOption    `json:"oneOf"`
	Items       *itemsSchema    `json:"items"`
	Default     json.RawMessage `json:"default"`
}

type enumOption struct {
	Const any `json:"const"`
}

type itemsSchema struct {
	Enum  []any        `json:"enum"`
	AnyOf []enumOption `json:"anyOf"`
}

// parseForm reads a requested schema within the bounds. Demiurge answers a
// form only with its declared defaults, so a required field without one
// (or a default that does not fit its field) makes the form unanswerable.
// Its errors name fields as clean makes them, then quoted: a declared value
// in a name is replaced before %q escapes it out of the replacer's sight.
func parseForm(schema any, clean func(string) string) (form, error) {
	raw, err := json.Marshal(schema)
	if err != nil {
		return form{}, fmt.Errorf("the requested schema is not JSON: %w", err)
	}
	if len(raw) > maxFormSchemaBytes {
		return form{}, fmt.Errorf("the requested schema has %d bytes, more than %d", len(raw), maxFormSchemaBytes)
	}
	var s struct {
		Type       string                     `json:"type"`
		Properties map[string]json.RawMessage `json:"properties"`
		Required   []string                   `json:"required"`
	}
	if err := json.Unmarshal(raw, &s); err != nil || s.Type != "object" {
		return form{}, errors.New(`the requested schema is not an object schema ("type": "object")`)
	}
	if len(s.Properties) > maxFormFields {
		return form{}, fmt.Errorf("the form has %d fields, more than %d", len(s.Properties), maxFormFields)
	}
	for _, r := range s.Required {
		if _, ok := s.Properties[r]; !ok {
			return form{}, fmt.Errorf("required field %s is not a property", quoted(clean, r))
		}
	}
	f := form{raw: raw}
	for name, prop := range s.Properties {
		field, err := parseField(name, prop, slices.Contains(s.Required, name), clean)
		if err != nil {
			return form{}, err
		}
		f.fields = append(f.fields, field)
	}
	slices.SortFunc(f.fields, func(a, b formField) int { return strings.Compare(a.name, b.name) })
	return f, nil
}

// quoted is the server's s for an error: redacted, clipped, then quoted.
func quoted(clean func(string) string, s string) string {
	return strconv.Quote(clipRunes(clean(s), maxFormName))
}

func parseField(name string, prop json.RawMessage, required bool, clean func(string) string) (formField, error) {
	if name == "" || len(name) > maxFormName || !utf8.ValidString(name) {
		return formField{}, fmt.Errorf("field name %s is empty, longer than %d bytes or not UTF-8", quoted(clean, name), maxFormName)
	}
	q := quoted(clean, name)
	var p propertySchema
	if err := json.Unmarshal(prop, &p); err != nil {
		return formField{}, fmt.Errorf("field %s is not a schema", q)
	}
	f := formField{name: name, typ: p.Type, required: required, text: strings.TrimSpace(p.Title + " " + p.Description)}
	var err error
	switch p.Type {
	case "string":
		if f.enum, err = enumValues(p.Enum, p.OneOf); err == nil {
			f.def, err = stringDefault(p.Default, f.enum)
		}
	case "number", "integer":
		f.def, err = numberDefault(p.Default, p.Type == "integer")
	case "boolean":
		f.def, err = boolDefault(p.Default)
	case "array":
		if p.Items == nil {
			return formField{}, fmt.Errorf("field %s is an array without items", q)
		}
		if f.enum, err = enumValues(p.Items.Enum, p.Items.AnyOf); err == nil {
			f.def, err = arrayDefault(p.Default, f.enum)
		}
	default:
		return formField{}, fmt.Errorf("field %s has type %s; a form field is a string, number, integer, boolean or array of enum strings", q, quoted(clean, p.Type))
	}
	if err != nil {
		return formField{}, fmt.Errorf("field %s: %w", q, err)
	}
	if f.def == nil && required {
		return formField{}, fmt.Errorf("field %s is required and declares no default; Demiurge accepts a form only with its declared defaults", q)
	}
	return f, nil
}

// enumValues are a string field's allowed values, from enum or from the
// titled form (oneOf/anyOf of const).
func enumValues(enum []any, options []enumOption) ([]string, error) {
	values := enum
	for _, o := range options {
		values = append(values, o.Const)
	}
	if len(values) > maxFormEnum {
		return nil, fmt.Errorf("it has %d enum values, more than %d", len(values), maxFormEnum)
	}
	out := make([]string, 0, len(values))
	for _, v := range values {
		s, ok := v.(string)
		if !ok || len(s) > maxFormString {
			return nil, fmt.Errorf("an enum value is not a string of at most %d bytes", maxFormString)
		}
		out = append(out, s)
	}
	return out, nil
}

func stringDefault(raw json.RawMessage, enum []string) (any, error) {
	if raw == nil {
		return nil, nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil || len(s) > maxFormString {
		return nil, fmt.Errorf("the default is not a string of at most %d bytes", maxFormString)
	}
	if len(enum) > 0 && !slices.Contains(enum, s) {
		return nil, errors.New("the default is not one of the enum values")
	}
	return s, nil
}

func numberDefault(raw json.RawMessage, integer bool) (any, error) {
	if raw == nil {
		return nil, nil
	}
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var n json.Number
	if err := d.Decode(&n); err != nil {
		return nil, errors.New("the default is not a number")
	}
	if _, err := n.Float64(); err != nil {
		return nil, errors.New("the default is not a number")
	}
	if _, err := n.Int64(); integer && err != nil {
		return nil, errors.New("the default is not an integer")
	}
	return n, nil
}

func boolDefault(raw json.RawMessage) (any, error) {
	if raw == nil {
		return nil, nil
	}
	var b bool
	if err := json.Unmarshal(raw, &b); err != nil {
		return nil, errors.New("the default is not a boolean")
	}
	return b, nil
}

func arrayDefault(raw json.RawMessage, enum []string) (any, error) {
	if raw == nil {
		return nil, nil
	}
	var values []string
	if err := json.Unmarshal(raw, &values); err != nil || len(values) > maxFormEnum {
		return nil, fmt.Errorf("the default is not an array of at most %d strings", maxFormEnum)
	}
	for _, v := range values {
		if !slices.Contains(enum, v) {
			return nil, errors.New("a default value is not one of the enum values")
		}
	}
	return values, nil
}

// defaults is the accepted content: every field that declares a default,
// with that default.
func (f form) defaults() map[string]any {
	out := map[string]any{}
	for _, field := range f.fields {
		if field.def != nil {
			out[field.name] = field.def
		}
	}
	return out
}

// preview lists the fields and what accepting sends for each, as inert
// text; clean makes the server's words safe to show (redaction).
func (f form) preview(clean func(string) string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "form with %d field(s); allowing sends:", len(f.fields))
	for _, field := range f.fields {
		fmt.Fprintf(&b, "\n%s (%s", shown(clean, field.name, maxFormName), field.typ)
		if field.required {
			b.WriteString(", required")
		}
		if field.def != nil {
			b.WriteString(") = " + shown(clean, defaultText(clean, field.def), maxFormString))
		} else {
			b.WriteString(") left out (no default)")
		}
		if field.text != "" {
			b.WriteString(": " + shown(clean, field.text, maxFormText))
		}
	}
	return b.String()
}

// defaultText is a default as JSON, each of its strings redacted before it
// is encoded: encoding escapes a quote, a backslash, a control character
// or U+2028 in a declared value, and the replacer would no longer find it
// in the JSON text. (shown redacts the text once more, for a value spread
// across an array's strings.)
func defaultText(clean func(string) string, def any) string {
	switch d := def.(type) {
	case string:
		def = clean(d)
	case []string:
		cleaned := make([]string, len(d))
		for i, v := range d {
			cleaned[i] = clean(v)
		}
		def = cleaned
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(def)
	return strings.TrimSuffix(b.String(), "\n")
}

// shown is the server's text as a card may show it: redacted, clipped and
// inert.
func shown(clean func(string) string, s string, n int) string {
	return approval.Inert(clipRunes(clean(s), n))
}

// clipRunes is s cut to its first n runes, marked "…" when cut (never
// inside a rune).
func clipRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n]) + "…"
}
