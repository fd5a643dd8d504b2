package main

import (
	"context"
	"flag"
	"io"
	"testing"
	"time"

	"github.com/urfave/cli/v2"
)

// TestLineTypedAsTheForegroundEndsIsNotLost: a line that reaches the
// session just as the turn ends (the case of "/quit" typed on seeing the
// answer) is the next command. The broker hands over a line that has come
// even when the busy context is already done; foreground once dropped it
// then, and the session waited for input that had already come.
func TestLineTypedAsTheForegroundEndsIsNotLost(t *testing.T) {
	lost := 0
	for i := 0; i < 50000; i++ {
		b := &lineBroker{read: func(string) (string, error) { select {} }}
		b.ready = &lineResult{line: "/quit"} // typed while the turn ran
		c := cli.NewContext(cli.NewApp(), flag.NewFlagSet("t", flag.ContinueOnError), nil)
		c.Context = context.Background()
		r := &repl{c: c, lines: b, out: io.Discard, errOut: io.Discard, tty: true}
		r.foreground(func(context.Context) {}) // a turn that ends at once
		if line, ok := r.nextQueued(); ok && line == "/quit" {
			continue
		}
		ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
		line, err := b.ReadLine(ctx, "> ", false)
		cancel()
		if err != nil || line != "/quit" {
			lost++
		}
	}
	if lost > 0 {
		t.Fatalf("%d of 50000 lines typed as the turn ended were lost", lost)
	}
}
