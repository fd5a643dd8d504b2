package dispatch

import (
	"runtime"

	"demiurge.dev/catalog"
	"demiurge.dev/host/redact"
	"demiurge.dev/host/untrusted"
)

// A large result from outside is screened and wrapped on its own
// goroutine from the moment it arrives, beside redaction (each is one pass
// over the text, about as long as the other), so the call waits for the
// longer of the two rather than their sum, when there is another P to
// run it. The envelope and verdict are used only for the very text they
// were made of: when redaction or an output policy made the model view
// another text, that text is screened and wrapped again in the caller.

// earlyScreenMin is the smallest result screened beside redaction; a
// smaller one is screened in a few microseconds, less than starting a
// goroutine is worth.
const earlyScreenMin = 64 << 10

// screenText is the screening every envelope's verdict comes from, with
// the boundary's first place in the text found in the same pass
// (untrusted.ScreenFor; a variable: the benchmarks put the screener
// before issue 30's faster scan here, package untrusted/oracle, to
// compare the two in one run).
var screenText = untrusted.ScreenFor

// envelope is text in the envelope with boundary and origin, screened.
func envelope(boundary, origin, text string) (head, tail string, _ untrusted.Verdict) {
	v, at := screenText(text, boundary)
	return untrusted.EnvelopeAt(boundary, origin, text, v, at)
}

// earlyScreen is one screening under way: of text, for an envelope
// with origin and boundary.
type earlyScreen struct {
	text, origin, boundary string
	done                   chan struct{}
	ok                     bool
	head, tail             string // the envelope's lines
	verdict                untrusted.Verdict
}

// startScreening starts screening the text that will most likely become
// the model view of p's result (as redact.Make and the output policy pick
// it), when p's tool gives untrusted output and the text is large. It
// returns nil when there is nothing to start.
func (t *Turn) startScreening(p *prepared, raw *redact.Raw) *earlyScreen {
	if p.entry == nil || p.status != "" {
		return nil
	}
	kind := t.untrustedKind(p.entry)
	if kind == "" || kind == "agent" || kind == "history" { // bounded results: screened in line
		return nil
	}
	text := raw.Content
	if raw.HasModelOutput {
		text = raw.ModelOutput
	}
	switch p.entry.Effective.ModelOutputPolicy {
	case catalog.ModelStatus:
		return nil // the model gets the host's note, not the output
	case catalog.ModelDisplay:
		if raw.HasDisplayOutput {
			text = raw.DisplayOutput
		}
	}
	if len(text) < earlyScreenMin || runtime.GOMAXPROCS(0) == 1 {
		// With one P nothing runs beside the caller: the goroutine
		// and the yield below only cost (~40 µs of host CPU a call
		// for one that does nothing, ~35 µs paired on the 1 MiB prose
		// page with the screener; BENCHMARKS.md stop 65), and the
		// caller screens the model view after redaction (wrap), as it
		// does a small result.
		return nil
	}
	e := &earlyScreen{text: text, origin: untrustedOrigin(kind, p), boundary: t.EnvelopeBoundary(), done: make(chan struct{})}
	go func() {
		defer close(e.done)
		defer func() { _ = recover() }() // e.ok stays false: done again in the caller
		e.head, e.tail, e.verdict = envelope(e.boundary, e.origin, text)
		e.ok = true
	}()
	// Let it start now. On one P it would otherwise wait, runnable, until
	// the caller blocks (after redaction, by then at the envelope): each
	// syscall of the caller meanwhile hands the P to another thread and
	// back. Measured on a 1 MiB result (BENCHMARKS.md §30.6): about half
	// the host CPU screening added went there, and none with this. With
	// more Ps the yield hands the caller to another P, which on a VM may
	// first have to wake its idle vCPU (145–161 µs on the PVM guest of
	// BENCHMARKS.md stop 46): the screening then runs first, alone;
	// without the yield it runs beside redaction. The host CPU was the
	// same either way there.
	runtime.Gosched()
	return e
}

// wrap is model in the envelope with origin and boundary, and its
// verdict: the early ones when they were made of exactly these, or
// made now. The content is not copied: the model view holds the
// envelope's lines beside it.
func (e *earlyScreen) wrap(boundary, origin, model string) (redact.ModelView, untrusted.Verdict) {
	if e != nil {
		<-e.done
		if e.ok && e.text == model && e.origin == origin && e.boundary == boundary {
			return redact.ModelView{Head: e.head, Body: model, Tail: e.tail}, e.verdict
		}
	}
	head, tail, v := envelope(boundary, origin, model)
	return redact.ModelView{Head: head, Body: model, Tail: tail}, v
}
