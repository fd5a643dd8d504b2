package termsession

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"sync"

	"github.com/chzyer/readline"
)

// Loop is the interactive session's input loop, in process and through
// the host alike: it reads lines (from the line editor, or a pipe),
// runs each through Command, keeps one foreground job (a turn or a
// call) with the input live for /stop and queued lines meanwhile, and
// counts Ctrl-C at an empty prompt (two leave).
type Loop struct {
	// Ctx is the session's context; a foreground job's derives from it.
	Ctx         context.Context
	Lines       *LineBroker
	Out, ErrOut io.Writer
	// TTY: the input is the operator's terminal (the line editor).
	TTY bool
	// Hist keeps typed lines; nil from a pipe.
	Hist *History
	// Command runs one line; it reports whether the session should end.
	Command func(line string) (quit bool)

	mu sync.Mutex
	// stopFG cancels the foreground turn or call, saying who stopped it;
	// nil when none runs.
	stopFG func(why string)
	// interrupts counts Ctrl-C at an empty prompt; two leave.
	interrupts int
	// queued are the lines typed while the foreground ran, to run after
	// it in order; stopping the foreground drops them.
	queued    []string
	leave     chan struct{}
	leaveOnce sync.Once
}

// Init makes what Leave and Run share; Run calls it too.
func (r *Loop) Init() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.leave == nil {
		r.leave = make(chan struct{})
	}
}

// Leave ends the session at its next read (Ctrl-C twice, a lost host).
func (r *Loop) Leave() {
	r.Init()
	r.leaveOnce.Do(func() { close(r.leave) })
}

// leaving reports whether Leave was called.
func (r *Loop) leaving() bool {
	select {
	case <-r.leave:
		return true
	default:
		return false
	}
}

// Run reads and runs lines until the session ends.
func (r *Loop) Run() error {
	r.Init()
	idle, cancelIdle := context.WithCancel(context.Background())
	defer cancelIdle()
	go func() { <-r.leave; cancelIdle() }()
	for {
		if line, ok := r.nextQueued(); ok {
			if quit := r.Command(line); quit {
				return nil
			}
			continue
		}
		if r.leaving() {
			// Left while the foreground ran (a lost host): no prompt for
			// a line that will not be read.
			fmt.Fprintln(r.Out)
			return nil
		}
		line, err := r.Lines.ReadLine(idle, Prompt, false)
		switch {
		case idle.Err() != nil:
			fmt.Fprintln(r.Out)
			return nil
		case errors.Is(err, readline.ErrInterrupt):
			if line == "" && r.interruptedIdle() {
				return nil
			}
			continue
		case errors.Is(err, io.EOF):
			if line = strings.TrimSpace(line); line != "" {
				r.Command(line)
			}
			fmt.Fprintln(r.Out)
			return nil
		case err != nil:
			return err
		}
		r.mu.Lock()
		r.interrupts = 0
		r.mu.Unlock()
		if line = strings.TrimSpace(line); line == "" {
			continue
		}
		r.Remember(line)
		if quit := r.Command(line); quit {
			return nil
		}
	}
}

// interruptedIdle counts a Ctrl-C with nothing running and reports
// whether it was the second in a row.
func (r *Loop) interruptedIdle() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.interrupts++
	if r.interrupts >= 2 {
		return true
	}
	fmt.Fprintln(r.ErrOut, "(Ctrl-C again to leave, or /quit)")
	return false
}

// CatchInterrupts turns SIGINT into "stop the foreground work", or, with
// nothing running, into the count that leaves on the second. With line
// editing the key arrives as ErrInterrupt instead while a prompt reads.
func (r *Loop) CatchInterrupts() (stop func()) {
	r.Init()
	sig := make(chan os.Signal, 4)
	signal.Notify(sig, os.Interrupt)
	done := make(chan struct{})
	go func() {
		for {
			select {
			case <-sig:
				if !r.StopForeground("interrupted") && r.interruptedIdle() {
					r.Leave()
				}
			case <-done:
				return
			}
		}
	}()
	return func() { signal.Stop(sig); close(done) }
}

// StopForeground cancels the running turn or call, if any.
func (r *Loop) StopForeground(why string) bool {
	r.mu.Lock()
	stop := r.stopFG
	r.mu.Unlock()
	if stop == nil {
		return false
	}
	fmt.Fprintf(r.ErrOut, "%s: stopping the foreground turn (background tasks go on)\n", why)
	stop(why)
	r.mu.Lock()
	dropped := len(r.queued)
	r.queued = nil
	r.mu.Unlock()
	if dropped > 0 {
		fmt.Fprintf(r.ErrOut, "%d queued line(s) not run (the up arrow recalls them)\n", dropped)
	}
	return true
}

// queue keeps a line typed while the foreground runs, to run after it:
// one typed as an answer appears, before its turn has quite ended, is
// the operator's next message, not a mistake to refuse.
func (r *Loop) queue(line string) {
	r.Remember(line)
	r.mu.Lock()
	r.queued = append(r.queued, line)
	r.mu.Unlock()
	fmt.Fprintln(r.ErrOut, "queued: it runs when the running turn ends (/stop or Ctrl-C stops that turn)")
}

// Remember keeps a typed line in the history, when there is one.
func (r *Loop) Remember(line string) {
	if r.Hist == nil {
		return
	}
	if err := r.Hist.Add(line); err != nil {
		fmt.Fprintf(r.ErrOut, "warning: history not saved: %v\n", err)
	}
}

func (r *Loop) nextQueued() (string, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.queued) == 0 {
		return "", false
	}
	line := r.queued[0]
	r.queued = r.queued[1:]
	return line, true
}

// Foreground runs fn as the one foreground job. On a terminal the input
// stays live meanwhile: /stop or Ctrl-C cancels fn's context, and an
// approval or question asked by fn takes the next line. From a pipe the
// lines wait their turn, as a script expects.
func (r *Loop) Foreground(fn func(ctx context.Context)) (quit bool) {
	ctx, cancel := context.WithCancelCause(r.Ctx)
	defer cancel(nil)
	r.mu.Lock()
	r.stopFG = func(why string) { cancel(StoppedBy(why)) }
	r.mu.Unlock()
	defer func() {
		r.mu.Lock()
		r.stopFG = nil
		r.mu.Unlock()
	}()
	done := make(chan struct{})
	go func() { defer close(done); fn(ctx) }()
	if !r.TTY {
		<-done
		return false
	}
	busy, stopBusy := context.WithCancel(context.Background())
	defer stopBusy()
	go func() { <-done; stopBusy() }()
	for {
		line, err := r.Lines.ReadLine(busy, BusyPrompt, false)
		// busy is looked at once: were each case to look again, it could
		// end between two looks, and a line that came would be dropped
		// as if none had.
		ended := busy.Err() != nil
		switch {
		case err == nil && ended:
			// The line came just as the foreground ended (the broker's
			// select may take either): it is the next command, never lost.
			if line = strings.TrimSpace(line); line != "" && line != "/stop" {
				r.Remember(line)
				r.mu.Lock()
				r.queued = append(r.queued, line)
				r.mu.Unlock()
			}
			return false
		case ended:
			return false
		case errors.Is(err, readline.ErrInterrupt):
			r.StopForeground("^C")
		case errors.Is(err, io.EOF):
			r.StopForeground("input closed")
			<-done
			return true
		case err != nil:
			return false
		case strings.TrimSpace(line) == "/stop":
			r.StopForeground("/stop")
		case strings.TrimSpace(line) != "":
			r.queue(strings.TrimSpace(line))
		}
	}
}

// Answer reads an approval answer through the session's input; Ctrl-C
// at the prompt denies and stops the foreground turn.
func (r *Loop) Answer(ctx context.Context, p string) (string, error) {
	line, err := r.Lines.ReadLine(ctx, p, true)
	if errors.Is(err, readline.ErrInterrupt) {
		r.StopForeground("^C")
		return "", context.Canceled
	}
	return line, err
}

// stopped is the cause of a foreground job the operator stopped: what
// a cancelled call reports ("call cancelled: stopped by /stop") names
// the operator, not "context canceled"; it is still a cancellation.
type stopped struct{ why string }

// StoppedBy is the cause of a foreground job stopped by why.
func StoppedBy(why string) error { return stopped{why} }

func (s stopped) Error() string        { return "stopped by " + s.why }
func (s stopped) Is(target error) bool { return target == context.Canceled }
