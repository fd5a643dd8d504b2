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
	Tool, CallID     string
	Args             map[string]any
	IsError          bool
	Content          string
	ModelOutput      string
	DisplayOutput    string
	HasModelOutput   bool
	HasDisplayOutput bool
	Structured       map[string]any
	ErrorText        string
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
	Model  string         // model history and provider replay
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
		Model:  FailedText,
		Card:   Card{Title: FailedText, Args: FailedText, Body: FailedText, IsError: true},
		Event:  fixed(),
		Record: fixed(),
		Debug:  fixed(),
		Failed: true,
	}
}

func makeViews(raw Raw, given []Secret) (Views, error) {
	hook("discover")
	secrets := mergeSecrets(given, Discover(raw.Args, nil), DiscoverText("error", raw.ErrorText))
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
	args, err := r.preview(raw.Args, cardPreviewLimit)
	if err != nil {
		return Views{}, fmt.Errorf("arguments: %w", err)
	}
	title := r.text(raw.Tool)
	if raw.IsError {
		title += " (error)"
	}

	event := r.eventMeta(raw, secrets)
	record := clone(event)
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
	if raw.Structured != nil {
		s, err := r.sanitize(raw.Structured, 0)
		if err != nil {
			return Views{}, fmt.Errorf("structured result: %w", err)
		}
		record["structured"] = s
	}
	debug := clone(event)
	debug["secret_fingerprints"] = r.fingerprints(secrets)

	v := Views{
		Model:  r.text(model),
		Card:   Card{Title: title, Args: args, Body: r.text(body), IsError: raw.IsError},
		Event:  event,
		Record: record,
		Debug:  debug,
	}
	// Every view must serialise; one that cannot would be dropped or
	// mangled further down the line.
	hook("marshal")
	// (The record and debug views hold every field of the event view.)
	if err := checkEncodable(record); err != nil {
		return Views{}, fmt.Errorf("record view: %w", err)
	}
	if err := checkEncodable(debug); err != nil {
		return Views{}, fmt.Errorf("debug view: %w", err)
	}
	return v, nil
}

// eventMeta is the safe metadata shared by event, record and debug: names,
// sizes and where secrets were found, never a value.
func (r *redactor) eventMeta(raw Raw, secrets []Secret) map[string]any {
	keys := make([]string, 0, len(raw.Args))
	for k := range raw.Args {
		keys = append(keys, r.text(k))
	}
	sort.Strings(keys)
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
	return map[string]any{
		"tool":           r.text(raw.Tool),
		"call_id":        r.text(raw.CallID),
		"is_error":       raw.IsError,
		"arg_keys":       keys,
		"sizes":          sizes,
		"secret_sources": sources,
	}
}

// mergeSecrets joins secret lists without duplicates.
func mergeSecrets(lists ...[]Secret) []Secret {
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

func clone(m map[string]any) map[string]any {
	out := make(map[string]any, len(m)+4)
	for k, v := range m {
		out[k] = v
	}
	return out
}
