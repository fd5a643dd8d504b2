package dispatch

import (
	"strconv"
	"strings"

	"demiurge.dev/catalog"
	"demiurge.dev/host/redact"
)

// applyOutputPolicies applies the tool's effective display_policy to the
// card and its model_output_policy to the model view (catalog
// output_policy.go defines the values). When a policy changed a view, the
// event, record and debug views say which and how much was left out (the
// record still holds the whole redacted result). It reports whether the
// model view is now the host's own note rather than the tool's output.
func applyOutputPolicies(p *prepared, v *redact.Views) (hostNote bool) {
	if p.entry == nil || v.Failed {
		return false
	}
	eff := p.entry.Effective
	// What a policy changed, made only when one did: most calls change
	// nothing, and an empty map that escapes was one allocation of each.
	var applied map[string]any
	note := func(k string, v any) {
		if applied == nil {
			applied = make(map[string]any, 3)
		}
		applied[k] = v
	}
	// The model view first: "display" means the card's body as the tool
	// made it, before the card is bounded.
	switch eff.ModelOutputPolicy {
	case catalog.ModelDisplay:
		if v.Model.String() != v.Card.Body {
			v.Model = redact.ModelText(v.Card.Body)
			note("model_output_policy", catalog.ModelDisplay)
		}
	case catalog.ModelStatus:
		if !v.Card.IsError {
			v.Model = redact.ModelText("the call succeeded; its " + strconv.Itoa(v.Model.Len()) + " bytes of output are not shown to the model (model_output_policy: status)")
			note("model_output_policy", catalog.ModelStatus)
			hostNote = true
		}
	}
	switch eff.DisplayPolicy {
	case catalog.CardFull:
	case catalog.CardQuiet:
		if !v.Card.IsError {
			note("display_policy", catalog.CardQuiet)
			note("card_hidden_bytes", len(v.Card.Body))
			v.Card.Body = "(" + strconv.Itoa(len(v.Card.Body)) + " bytes of output not shown: display_policy quiet)"
		}
	default: // summary, the default
		if body, cut := summarize(v.Card.Body); cut > 0 {
			v.Card.Body = body
			note("display_policy", catalog.CardSummary)
			note("card_hidden_bytes", cut)
		}
	}
	if len(applied) > 0 {
		if !v.Event.IsZero() { // and so the record and debug views (redact.Views)
			v.Event.Set("output_policy", applied)
		}
	}
	return hostNote
}

// summarize bounds a card body to catalog.CardSummaryLines lines and
// catalog.CardSummaryBytes bytes (cut at a line end when there is one,
// never inside a UTF-8 sequence) and says what was left out; cut is how
// many bytes were.
func summarize(body string) (string, int) {
	end := len(body)
	if end > catalog.CardSummaryBytes {
		end = catalog.CardSummaryBytes
		for end > 0 && end < len(body) && body[end]&0xC0 == 0x80 {
			end-- // not inside a UTF-8 sequence
		}
	}
	if n := nthNewline(body[:end], catalog.CardSummaryLines); n >= 0 {
		end = n + 1
	} else if end < len(body) {
		if nl := strings.LastIndexByte(body[:end], '\n'); nl > 0 {
			end = nl + 1
		}
	}
	if end >= len(body) {
		return body, 0
	}
	rest := body[end:]
	lines := strings.Count(rest, "\n")
	if !strings.HasSuffix(rest, "\n") {
		lines++
	}
	note := "… " + strconv.Itoa(lines) + " more lines (" + strconv.Itoa(len(rest)) + " bytes) not shown: display_policy summary; the audit record holds them"
	if !strings.HasSuffix(body[:end], "\n") {
		note = "\n" + note
	}
	return body[:end] + note, len(rest)
}

// nthNewline is the index of s's nth newline, or -1.
func nthNewline(s string, n int) int {
	for i := 0; i < len(s); i++ {
		if s[i] == '\n' {
			n--
			if n == 0 {
				return i
			}
		}
	}
	return -1
}
