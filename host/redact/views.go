package redact

import (
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
	ErrorText  string
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
type Views struct {
	Model  ModelView      // model history and provider replay (see ModelView)
	Card   Card           // operator tool card
	Event  map[string]any // event log: safe metadata, no values
	Record map[string]any // durable record: Event plus redacted content
	Debug  map[string]any // host debug: Event plus keyed fingerprints of secrets
	Failed bool           // redaction failed; every view is the fixed failed result
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
	fixed := func() map[string]any {
		return map[string]any{"result": FailedText, "redaction_failed": true}
	}
	return Views{
		Model:  ModelText(FailedText),
		Card:   Card{Title: FailedText, Args: FailedText, Body: FailedText, IsError: true},
		Event:  fixed(),
		Record: fixed(),
		Debug:  fixed(),
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

	meta := r.eventMeta(raw, secrets)
	event := meta.into(make(map[string]any, metaFields))
	record := meta.into(make(map[string]any, metaFields+recordFields(raw)))
	record["args_preview"] = args
	record["content"] = r.text(raw.Content)
	if raw.HasModelOutput {
		record["model_output"] = r.text(raw.ModelOutput)
	}
	if raw.HasDisplayOutput {
		record["display_output"] = r.text(raw.DisplayOutput)
	}
	if raw.ErrorText != "" {
		record["error"] = r.text(raw.ErrorText)
	}
	var structured any
	if raw.Structured != nil {
		// Handed over: an unchanged result is the view as it is.
		s, err := r.sanitizeKept(raw.Structured)
		if err != nil {
			return Views{}, fmt.Errorf("structured result: %w", err)
		}
		record["structured"], structured = s, s
	}
	debug := meta.into(make(map[string]any, metaFields+1))
	debug["secret_fingerprints"] = noFingerprints
	if len(secrets) > 0 {
		debug["secret_fingerprints"] = r.fingerprints(secrets)
	}

	v := Views{
		Model:  ModelText(r.text(model)),
		Card:   Card{Title: title, Args: args, Body: r.text(body), IsError: raw.IsError || CommandFailed(raw.Structured)},
		Event:  event,
		Record: record,
		Debug:  debug,
	}
	// Every view must serialise; one that cannot would be dropped or
	// mangled further down the line. Every field is built above from
	// strings, booleans, integers, string slices and maps of those, which
	// always encode, or is the preview, already encoded; only the
	// structured result can hold a value that does not (a float that is
	// NaN or infinite), so only it is checked.
	hook("marshal")
	if structured != nil {
		if err := checkEncodable(structured); err != nil {
			return Views{}, fmt.Errorf("record view: structured: %w", err)
		}
	}
	return v, nil
}

// metaFields is how many fields eventMeta gives every map view.
const metaFields = 6

// recordFields is how many fields the record view has beyond the event's,
// so that its map is made at its final size.
func recordFields(raw Raw) int {
	n := 2 // args_preview, content
	for _, has := range []bool{raw.HasModelOutput, raw.HasDisplayOutput, raw.ErrorText != "", raw.Structured != nil} {
		if has {
			n++
		}
	}
	return n
}

// viewMeta is the safe metadata shared by event, record and debug: names,
// sizes and where secrets were found, never a value. Its fields are held
// as interface values so each is converted once and shared by the three
// maps, as copying one map into the others would share them.
type viewMeta struct {
	tool, callID, isError, argKeys, sizes, sources any
}

func (m *viewMeta) into(dst map[string]any) map[string]any {
	dst["tool"], dst["call_id"], dst["is_error"] = m.tool, m.callID, m.isError
	dst["arg_keys"], dst["sizes"], dst["secret_sources"] = m.argKeys, m.sizes, m.sources
	return dst
}

func (r *redactor) eventMeta(raw Raw, secrets []Secret) viewMeta {
	keys := make([]string, 0, len(raw.Args))
	for k := range raw.Args {
		keys = append(keys, r.text(k))
	}
	sort.Strings(keys)
	sizes := map[string]any{
		"content_bytes": len(raw.Content),
		"error_bytes":   len(raw.ErrorText),
	}
	if raw.HasModelOutput {
		sizes["model_output_bytes"] = len(raw.ModelOutput)
	}
	if raw.HasDisplayOutput {
		sizes["display_output_bytes"] = len(raw.DisplayOutput)
	}
	if raw.Structured != nil {
		sizes["structured_keys"] = len(raw.Structured)
	}
	return viewMeta{
		tool:    r.text(raw.Tool),
		callID:  r.text(raw.CallID),
		isError: raw.IsError,
		argKeys: keys,
		sizes:   sizes,
		sources: r.sources(secrets),
	}
}

// noSources and noFingerprints are secret_sources and secret_fingerprints
// of a call without secrets (most calls), made into interface values
// once: converting a slice to one allocates every time. An empty slice
// cannot be changed in place, so every view of every call may share it.
var (
	noSources      any = []string{}
	noFingerprints any = []map[string]string{}
)

// sources lists where secrets were found, each place once, sorted.
func (r *redactor) sources(secrets []Secret) any {
	if len(secrets) == 0 {
		return noSources
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
