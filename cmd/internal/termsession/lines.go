// Package termsession is the interactive session's terminal side: the line
// editor and its history, the broker that shares the one input among the
// prompt, approvals and questions, completion, and the chat printer. The
// full CLI's session (in process and through the host) and the small front
// end's (through the host) use it, so the two print alike; it links no
// host package (no model SDK, no shell parser).
package termsession

import (
	"bufio"
	"context"
	"errors"
	"io"
	"slices"
	"strings"
	"sync"
)

// LineBroker shares the operator's one input among whoever waits for a
// line: the session's prompt, an approval or a clarify question asked
// while a turn runs. The newest question (a fresh waiter) gets the next
// line and its prompt is shown, or with no question the newest waiter: a
// question asked before the busy prompt's read (a turn's first approval
// can come back from the host before the session asks for that read)
// still takes its answer. A read cannot be cancelled, so a read left by a waiter that
// gave up stays in flight for the next one. Lines no one took (their
// waiter gave up as they came) queue in the order they were typed: two
// waiters giving up at once each keep theirs.
type LineBroker struct {
	// read shows prompt and blocks for one line.
	read func(prompt string) (string, error)
	// reprompt changes the prompt of the read in flight (may be nil).
	reprompt func(prompt string)
	// setPrompt, when set, sets the prompt of the next read without
	// drawing it; the broker calls it under its lock, so a reprompt that
	// comes before that read starts is never undone by a stale prompt
	// (read then ignores its argument).
	setPrompt func(prompt string)

	mu sync.Mutex
	// lead is shown before the prompt: the model's partial line while its
	// answer streams, so it shows token by token and the input stays live.
	lead     string
	waiters  []*lineWaiter
	inflight bool
	ready    []lineResult // lines that came while no one waited, oldest first
	seq      uint64       // lines read so far: the order they were typed
	eof      error        // sticky end of input
	// gaveUp, set only by tests, runs when a waiter's ctx ended, before
	// it takes the lock to leave.
	gaveUp func(prompt string)
}

type lineWaiter struct {
	prompt string
	fresh  bool // a question: it goes before the prompts
	ch     chan lineResult
}

// next is the index of the waiter that gets the next line: the newest
// question, or with none the newest waiter (-1 when no one waits).
func (b *LineBroker) next() int {
	for i := len(b.waiters) - 1; i >= 0; i-- {
		if b.waiters[i].fresh {
			return i
		}
	}
	return len(b.waiters) - 1
}

type lineResult struct {
	line string
	err  error
	seq  uint64
}

// keep queues a line no one took, in the order the lines were typed.
func (b *LineBroker) keep(r lineResult) {
	i := len(b.ready)
	for i > 0 && b.ready[i-1].seq > r.seq {
		i--
	}
	b.ready = slices.Insert(b.ready, i, r)
}

// ReadLine waits for the next line or for ctx. A fresh waiter (an
// approval, a question) never takes a line typed before it asked.
func (b *LineBroker) ReadLine(ctx context.Context, prompt string, fresh bool) (string, error) {
	b.mu.Lock()
	if b.eof != nil {
		b.mu.Unlock()
		return "", b.eof
	}
	if len(b.ready) > 0 {
		r := b.ready[0]
		if fresh && r.err == nil {
			b.ready = nil // typed before it asked: not its answer
		} else {
			b.ready = b.ready[1:]
			b.mu.Unlock()
			return r.line, r.err
		}
	}
	w := &lineWaiter{prompt: prompt, fresh: fresh, ch: make(chan lineResult, 1)}
	b.waiters = append(b.waiters, w)
	if !b.inflight {
		b.inflight = true
		if b.setPrompt != nil {
			b.setPrompt(b.lead + prompt)
		}
		go b.loop(b.lead + prompt)
	} else if b.reprompt != nil && b.waiters[b.next()] == w {
		b.reprompt(b.lead + prompt)
	}
	b.mu.Unlock()
	select {
	case r := <-w.ch:
		return r.line, r.err
	case <-ctx.Done():
	}
	if b.gaveUp != nil {
		b.gaveUp(prompt)
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	for i, x := range b.waiters {
		if x == w {
			wasNext := i == b.next()
			b.waiters = append(b.waiters[:i], b.waiters[i+1:]...)
			if len(b.waiters) > 0 && b.reprompt != nil && wasNext {
				b.reprompt(b.lead + b.waiters[b.next()].prompt)
			}
			return "", ctx.Err()
		}
	}
	// The line came as ctx ended: keep it for the next waiter.
	r := <-w.ch
	if !fresh {
		b.keep(r)
	}
	return "", ctx.Err()
}

// SetLead shows lead before the prompt of the read in flight (and of the
// next ones) until it is set again; a broker that cannot change a prompt
// in flight ignores it.
func (b *LineBroker) SetLead(lead string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.reprompt == nil || b.lead == lead {
		return
	}
	b.lead = lead
	if len(b.waiters) > 0 && b.inflight {
		b.reprompt(lead + b.waiters[b.next()].prompt)
	}
}

// loop reads lines while someone waits and hands each to the next
// waiter.
func (b *LineBroker) loop(prompt string) {
	for {
		line, err := b.read(prompt)
		b.mu.Lock()
		b.seq++
		r := lineResult{line: line, err: err, seq: b.seq}
		if errors.Is(err, io.EOF) {
			b.eof = io.EOF
		}
		if i := b.next(); i >= 0 {
			w := b.waiters[i]
			b.waiters = append(b.waiters[:i], b.waiters[i+1:]...)
			w.ch <- r
		} else {
			b.keep(r)
		}
		if len(b.waiters) == 0 || b.eof != nil {
			for _, w := range b.waiters {
				w.ch <- r
			}
			b.waiters = nil
			b.inflight = false
			b.mu.Unlock()
			return
		}
		prompt = b.lead + b.waiters[b.next()].prompt
		if b.setPrompt != nil {
			b.setPrompt(prompt)
		}
		b.mu.Unlock()
	}
}

// PipeLines reads lines from a pipe or file, printing each prompt.
func PipeLines(in io.Reader, out io.Writer) *LineBroker {
	r := bufio.NewReader(in)
	return &LineBroker{read: func(prompt string) (string, error) {
		io.WriteString(out, prompt)
		line, err := r.ReadString('\n')
		if errors.Is(err, io.EOF) && line != "" {
			err = nil
		}
		return strings.TrimRight(line, "\r\n"), err
	}}
}

// Unread puts line back as typed while no one waited: the next reader
// takes it (a line typed while the foreground ran, in a test).
func (b *LineBroker) Unread(line string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.seq++
	b.keep(lineResult{line: line, seq: b.seq})
}

// NewLineBroker is a broker over read, which shows prompt and blocks for
// one line (it cannot change a prompt in flight).
func NewLineBroker(read func(prompt string) (string, error)) *LineBroker {
	return &LineBroker{read: read}
}
