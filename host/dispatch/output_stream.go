package dispatch

import (
	"bytes"

	"demiurge.dev/host/redact"
	sharedredact "demiurge.dev/shared/redact"
	"demiurge.dev/shared/toolsetv1"
)

// maxOutputLine is how much of a line without its end OnOutput holds back
// before it shows it anyway (a progress bar that never prints a newline).
const maxOutputLine = 4096

// outputStream turns a foreground call's raw output chunks into the text
// OnOutput shows: the exact secrets of the call (found in its arguments;
// bound values are replaced before this sees them) replaced across chunk
// boundaries, then the well-known token formats within each line, as
// valid UTF-8. nil when the turn has no OnOutput.
type outputStream struct {
	callID  string
	show    func(callID, stream, text string)
	rep     *sharedredact.Replacer
	writers map[string]*sharedredact.Writer
	lines   map[string]*outputLines
	order   []string
}

func (t *Turn) outputStream(p *prepared) *outputStream {
	if t.OnOutput == nil {
		return nil
	}
	found := p.secretsInArgs()
	pairs := make([]sharedredact.Secret, len(found))
	for i, s := range found {
		pairs[i] = sharedredact.Secret{Target: s.Target, Value: s.Value}
	}
	return &outputStream{
		callID: p.call.ID, show: t.OnOutput, rep: sharedredact.NewReplacer(pairs),
		writers: map[string]*sharedredact.Writer{}, lines: map[string]*outputLines{},
	}
}

func (o *outputStream) event(ev *toolsetv1.InvokeEvent) {
	out := ev.GetOutput()
	if o == nil || out == nil {
		return
	}
	w := o.writers[out.GetStream()]
	if w == nil {
		l := &outputLines{stream: out.GetStream(), o: o}
		o.lines[out.GetStream()] = l
		w = o.rep.NewWriter(l)
		o.writers[out.GetStream()] = w
		o.order = append(o.order, out.GetStream())
	}
	_, _ = w.Write(out.GetData())
}

// close shows what is held back, once the call returned.
func (o *outputStream) close() {
	if o == nil {
		return
	}
	for _, s := range o.order {
		_ = o.writers[s].Close()
		o.lines[s].flush()
	}
}

// outputLines holds text until its line ends (tokens are matched within
// a line) or maxOutputLine bytes wait.
type outputLines struct {
	stream  string
	o       *outputStream
	pending []byte
}

func (l *outputLines) Write(p []byte) (int, error) {
	l.pending = append(l.pending, p...)
	cut := bytes.LastIndexByte(l.pending, '\n') + 1
	if len(l.pending) >= maxOutputLine {
		cut = runeBoundary(l.pending)
	}
	if cut > 0 {
		l.emit(l.pending[:cut])
		l.pending = l.pending[:copy(l.pending, l.pending[cut:])]
	}
	return len(p), nil
}

func (l *outputLines) flush() {
	l.emit(l.pending)
	l.pending = nil
}

func (l *outputLines) emit(b []byte) {
	if len(b) > 0 {
		l.o.show(l.o.callID, l.stream, redact.Text(string(b)))
	}
}
