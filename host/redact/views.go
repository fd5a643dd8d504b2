package redact

import (
	"encoding/json"
	"fmt"
	"sort"
)

// FailedText is the whole content of every view when redaction failed.
const FailedText = "<redaction-failed>"

// Raw is a tool result as the adapter returned it, with the call's
// arguments. It is internal execution data: only Views of it leave the host.
type Raw struct {
	Tool, CallID string
	// Args are the call's arguments as the tool received them: the
	// secrets are discovered in these.
	Args map[string]any
	// ShownArgs, when set, is what the card and the record show of the
	// arguments instead of Args (the host hides an environment overlay's
	// values there); secrets are still discovered in Args.
	ShownArgs        map[string]any
	IsError          bool
	Content          string
	ModelOutput      string
	DisplayOutput    string
	HasModelOutput   bool
	HasDisplayOutput bool
	// Structured is handed over: when redaction changes nothing in it,
	// the record view holds this map itself, so the caller must not change
	// it after Make.
	Structured map[string]any
	// Deferred, when Structured is nil, is a structured result read but
	// not decoded yet; only a plain one (StructuredPlain set, as its
	// reader found it) is deferred. Make keeps it so in the record view
	// when it keeps the result as it is, and decodes it when it walks it.
	Deferred  *Deferred
	ErrorText string
	// StructuredPlain, when set, says that Structured was decoded from a
	// JSON text without \u escapes that passed PlainJSONText, that none of
	// its keys (at any depth) is a SecretName, and that it holds only what
	// encoding/json decodes JSON into (maps, slices, strings, float64,
	// booleans, nil) no deeper than 64 levels: dispatch's decoder asks as
	// it reads the result. A call without secrets then keeps Structured
	// without a walk over it, which would find it unchanged
	// (TestStructuredPlainIsUnchanged).
	StructuredPlain bool
	// ArgSecrets, when ArgsSearched is set, is Discover(Args, nil) as
	// the caller found it already (dispatch searches a call's arguments
	// once, for the plugin's stream redactor and for the views); Make then
	// does not search Args again.
	ArgSecrets   []Secret
	ArgsSearched bool
}

// Card is the operator's tool card.
type Card struct {
	Title   string `json:"title"`
	Args    string `json:"args"`
	Body    string `json:"body"`
	IsError bool   `json:"is_error"`
}

// Views are the five redacted forms of one result.
//
// The event view is typed (EventView; its audit event is encoded from
// it); the record and debug views are its map plus their own fields,
// assembled when read (Record, Debug): on the call path only the
// record's structured result is read (Structured), and the debug view by
// no one. A field a later stage adds to a result's views (an output
// policy, the screening verdict) is therefore added to Event alone and
// reaches all three. Everything the record and debug views hold is
// redacted in Make; assembling them redacts nothing and cannot fail.
type Views struct {
	Model  ModelView // model history and provider replay (see ModelView)
	Card   Card      // operator tool card
	Event  EventView // event log: safe metadata, no values
	Failed bool      // redaction failed; every view is the fixed failed result

	record recordOwn // the record view's fields beyond Event's
	debug  debugOwn  // the debug view's fields beyond Event's
}

// recordOwn are the record view's fields beyond the event view's, each
// already redacted: args_preview and content always (when Make made the
// views), model_output, display_output, error and structured when the
// result had them.
type recordOwn struct {
	made                            bool // Make made them (not a failed or hand-built Views)
	argsPreview, content            string
	modelOutput, displayOutput, err string
	hasModel, hasDisplay            bool
	structured                      any       // nil: no structured result (or a deferred one)
	deferred                        *Deferred // a structured result kept as it is, not decoded yet
}

// structuredValue is the record's structured result, decoded if it was
// deferred; nil when there is none.
func (r *recordOwn) structuredValue() any {
	if r.deferred != nil {
		if m := r.deferred.Map(); m != nil {
			return m
		}
		return nil
	}
	return r.structured
}

// debugOwn are the debug view's fields beyond the event view's: the
// keyed fingerprints of the secrets found (Make always sets them), and
// whatever WithDebug added.
type debugOwn struct {
	fingerprints any // nil: none (a failed or hand-built Views)
	extra        map[string]any
}

// Record is the durable record view: Event plus the redacted content
// (args_preview, content, model_output, display_output, error,
// structured). Each call builds a new map; a change to it is not kept.
func (v Views) Record() map[string]any {
	r := &v.record
	if v.Event.IsZero() && !r.made {
		return nil
	}
	n := v.Event.Len()
	structured := r.structuredValue()
	if r.made {
		n += recordFields(r.hasModel, r.hasDisplay, r.err != "", structured != nil)
	}
	m := make(map[string]any, n)
	v.Event.AddTo(m)
	if !r.made {
		return m
	}
	m["args_preview"], m["content"] = r.argsPreview, r.content
	if r.hasModel {
		m["model_output"] = r.modelOutput
	}
	if r.hasDisplay {
		m["display_output"] = r.displayOutput
	}
	if r.err != "" {
		m["error"] = r.err
	}
	if structured != nil {
		m["structured"] = structured
	}
	return m
}

// Structured is the record view's structured result (Record()["structured"]
// without building the record): nil when the result had none. A deferred
// result is decoded here, once.
func (v Views) Structured() any { return v.record.structuredValue() }

// ExitCode is ExitCode of the record view's structured result (a
// command's exit status), read without decoding a deferred one.
func (v Views) ExitCode() (int, bool) {
	if d := v.record.deferred; d != nil {
		return exitCode(d.ExitCode)
	}
	s, _ := v.record.structured.(map[string]any)
	return ExitCode(s)
}

// Debug is the host debug view: Event plus secret_fingerprints, the keyed
// fingerprints of the secrets found, and what WithDebug added. Each call
// builds a new map; a change to it is not kept.
func (v Views) Debug() map[string]any {
	d := &v.debug
	if v.Event.IsZero() && d.fingerprints == nil && d.extra == nil {
		return nil
	}
	m := make(map[string]any, v.Event.Len()+1+len(d.extra))
	v.Event.AddTo(m)
	if d.fingerprints != nil {
		m["secret_fingerprints"] = d.fingerprints
	}
	for k, val := range d.extra {
		m[k] = val
	}
	return m
}

// MarshalJSON encodes the five views as the struct of five fields they
// were before the record and debug views were assembled when read: Model,
// Card, Event, Record, Debug, Failed.
func (v Views) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Model         ModelView
		Card          Card
		Event, Record map[string]any
		Debug         map[string]any
		Failed        bool
	}{v.Model, v.Card, v.Event.Map(), v.Record(), v.Debug(), v.Failed})
}

// WithDebug is v with a field in its debug view alone (the event and
// record views do not carry it), for a value only the host may see.
func (v Views) WithDebug(key string, value any) Views {
	extra := make(map[string]any, len(v.debug.extra)+1)
	for k, val := range v.debug.extra {
		extra[k] = val
	}
	extra[key] = value
	v.debug.extra = extra
	return v
}

// cardPreviewLimit bounds the arguments shown on a card.
const cardPreviewLimit = DefaultPreviewLimit

// Make redacts raw into its five views. The secrets passed in (from Discover,
// with the call's bindings) are joined by those Make finds itself in the
// arguments and in the error text. Any failure, including a panic, yields
// the fixed failed result in all five views: never raw content.
func Make(raw Raw, secrets []Secret) (v Views) {
	defer func() {
		if recover() != nil {
			v = failedViews()
		}
	}()
	v, err := makeViews(raw, secrets)
	if err != nil {
		return failedViews()
	}
	return v
}

func failedViews() Views {
	return Views{
		Model:  ModelText(FailedText),
		Card:   Card{Title: FailedText, Args: FailedText, Body: FailedText, IsError: true},
		Event:  EventOf(map[string]any{"result": FailedText, "redaction_failed": true}),
		Failed: true,
	}
}

func makeViews(raw Raw, given []Secret) (Views, error) {
	hook("discover")
	inArgs := raw.ArgSecrets
	if !raw.ArgsSearched {
		inArgs = Discover(raw.Args, nil)
	}
	secrets := mergeSecrets(given, inArgs, DiscoverText("error", raw.ErrorText))
	if raw.IsError {
		secrets = mergeSecrets(secrets, DiscoverText("error", raw.Content))
	}
	r := newRedactor(secrets)
	if raw.Structured == nil && raw.Deferred != nil && !r.keptAsIs(&raw) {
		// Redaction walks it: decoded after all.
		raw.Structured, raw.Deferred = raw.Deferred.Map(), nil
	}

	model := raw.Content
	if raw.HasModelOutput {
		model = raw.ModelOutput
	}
	if raw.IsError && model == "" {
		model = raw.ErrorText
	}
	body := raw.Content
	if raw.HasDisplayOutput {
		body = raw.DisplayOutput
	}
	if raw.IsError && body == "" {
		body = raw.ErrorText
	}
	shown := raw.Args
	if raw.ShownArgs != nil {
		shown = raw.ShownArgs
	}
	args, err := r.preview(shown, cardPreviewLimit)
	if err != nil {
		return Views{}, fmt.Errorf("arguments: %w", err)
	}
	title := r.text(raw.Tool)
	if raw.IsError {
		title += " (error)"
	}

	event := r.eventMeta(raw, secrets)
	// The model view, the card's body and the record's outputs are most
	// often the content itself: it is redacted once (text is a pure
	// function of its input for one redactor, whose memo keeps only texts
	// of memoMin bytes and more).
	content := r.text(raw.Content)
	text := func(s string) string {
		if s == raw.Content {
			return content
		}
		return r.text(s)
	}
	rec := recordOwn{made: true, argsPreview: args, content: content}
	if raw.HasModelOutput {
		rec.hasModel, rec.modelOutput = true, text(raw.ModelOutput)
	}
	if raw.HasDisplayOutput {
		rec.hasDisplay, rec.displayOutput = true, text(raw.DisplayOutput)
	}
	if raw.ErrorText != "" {
		rec.err = r.text(raw.ErrorText)
	}
	// decoded: the record holds raw.Structured as its decoder made it
	// from JSON text (Raw.StructuredPlain), which always encodes again.
	decoded := false
	if raw.Structured != nil {
		// Handed over: an unchanged result is the view as it is.
		var s any = raw.Structured
		if decoded = r.keptAsIs(&raw); !decoded {
			if s, err = r.sanitizeKept(raw.Structured); err != nil {
				return Views{}, fmt.Errorf("structured result: %w", err)
			}
		}
		rec.structured = s
	} else if raw.Deferred != nil {
		rec.deferred, decoded = raw.Deferred, true // kept as it is (above)
	}
	fingerprints := noFingerprints
	if len(secrets) > 0 {
		fingerprints = r.fingerprints(secrets)
	}

	v := Views{
		Model:  ModelText(text(model)),
		Card:   Card{Title: title, Args: args, Body: text(body), IsError: raw.IsError || raw.commandFailed()},
		Event:  event,
		record: rec,
		debug:  debugOwn{fingerprints: fingerprints},
	}
	// Every view must serialise; one that cannot would be dropped or
	// mangled further down the line. Every field is built above from
	// strings, booleans, integers, string slices and maps of those, which
	// always encode, or is the preview, already encoded; only the
	// structured result can hold a value that does not (a float that is
	// NaN or infinite), so only it is checked, unless it is what a JSON
	// decoder made (no float it parses is NaN or infinite).
	hook("marshal")
	if rec.structured != nil && !decoded {
		if err := checkEncodable(rec.structured); err != nil {
			return Views{}, fmt.Errorf("record view: structured: %w", err)
		}
	}
	return v, nil
}

// metaFields is how many fields eventMeta gives the event view.
const metaFields = len(metaKeys)

// recordFields is how many fields the record view has beyond the event's,
// so that its map is made at its final size.
func recordFields(hasModel, hasDisplay, hasError, hasStructured bool) int {
	n := 2 // args_preview, content
	for _, has := range [...]bool{hasModel, hasDisplay, hasError, hasStructured} {
		if has {
			n++
		}
	}
	return n
}

// eventMeta is the event view: names, sizes and where secrets were
// found, never a value. The record and debug views are it plus their own
// fields (Views).
func (r *redactor) eventMeta(raw Raw, secrets []Secret) EventView {
	structuredKeys, hasStructured := raw.structuredKeys()
	keys := make([]string, 0, len(raw.Args))
	for k := range raw.Args {
		keys = append(keys, r.text(k))
	}
	sort.Strings(keys)
	return EventView{made: true, meta: EventMeta{
		Tool:    r.text(raw.Tool),
		CallID:  r.text(raw.CallID),
		IsError: raw.IsError,
		ArgKeys: keys,
		Sizes: Sizes{
			Content: len(raw.Content), Error: len(raw.ErrorText),
			ModelOutput: len(raw.ModelOutput), HasModelOutput: raw.HasModelOutput,
			DisplayOutput: len(raw.DisplayOutput), HasDisplayOutput: raw.HasDisplayOutput,
			StructuredKeys: structuredKeys, HasStructured: hasStructured,
		},
		SecretSources: r.sources(secrets),
	}}
}

// noFingerprints is secret_fingerprints of a call without secrets (most
// calls), made into an interface value once: converting a slice to one
// allocates every time. An empty slice cannot be changed in place, so
// every view of every call may share it.
var noFingerprints any = []map[string]string{}

// sources lists where secrets were found, each place once, sorted; an
// empty list (not nil) when there are none.
func (r *redactor) sources(secrets []Secret) []string {
	if len(secrets) == 0 {
		return []string{}
	}
	seen := map[string]bool{}
	sources := []string{}
	for _, s := range secrets {
		src := r.text(s.Source)
		if !seen[src] {
			seen[src] = true
			sources = append(sources, src)
		}
	}
	sort.Strings(sources)
	return sources
}

// mergeSecrets joins secret lists without duplicates.
func mergeSecrets(lists ...[]Secret) []Secret {
	n := 0
	for _, l := range lists {
		n += len(l)
	}
	if n == 0 {
		return nil // most calls: without a set to make
	}
	seen := map[Secret]bool{}
	var out []Secret
	for _, l := range lists {
		for _, s := range l {
			if !seen[s] {
				seen[s] = true
				out = append(out, s)
			}
		}
	}
	return out
}
