package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"golang.org/x/term"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"demiurge.dev/cmd/internal/frontargs"
	"demiurge.dev/cmd/internal/frontview"
	"demiurge.dev/cmd/internal/hostopts"
	"demiurge.dev/cmd/internal/interrupt"
	"demiurge.dev/host/approval/prompt"
	"demiurge.dev/host/corerepo/corepath"
	"demiurge.dev/host/hostd/hostclient"
	"demiurge.dev/shared/hostv1"
)

// The full CLI's defaults of the typed host-shaping flags (their
// variables send the command to the full host: frontargs).
const (
	defaultOutputCapMiB      = 256
	defaultArtifactBudgetMiB = 4096
)

// toolsCall is `tools call` through the running host, as the full CLI's
// toolsCallViaHost makes it. Until the call has been sent it hands over
// (handed=true, nothing printed) whenever the full CLI might do something
// else: no host, a host of other options (the full CLI replaces an idle
// one), a host too old to send approval cards rendered (protocol 1.11)
// when an operator could answer one, a core repository whose live commit
// it cannot read without git. After the call was sent
// it never hands over (the call would run twice): it reports as the full
// CLI does, and returns the exit status.
func toolsCall(ctx context.Context, req frontargs.Request, state string, stdout, stderr io.Writer) (code int, handed bool) {
	cl, ok := dialShaped(ctx, req, state)
	if !ok {
		return 0, true
	}
	defer cl.Close()
	// Someone at the terminal answers approvals, asked with the card the
	// host rendered (host protocol 1.11; an older host: the full CLI asks).
	asker := term.IsTerminal(int(os.Stdin.Fd()))
	if asker && cl.Needs(11, "") != nil {
		return 0, true
	}
	args := req.Args
	if strings.TrimSpace(args) == "" {
		args = "{}"
	}
	stream, err := cl.Session(ctx)
	if err != nil {
		return 0, true
	}
	if err := stream.Send(&hostv1.FrontEndMessage{Msg: &hostv1.FrontEndMessage_Open{Open: &hostv1.OpenSession{Asker: asker}}}); err != nil {
		return 0, true
	}
	// On a terminal the call's output streams to stderr as it comes, with
	// a progress line, as the full CLI shows it.
	var live *frontview.Live
	if !req.Quiet && term.IsTerminal(int(os.Stderr.Fd())) {
		live = frontview.NewLive(os.Stderr, os.Stderr, true)
		defer live.Close()
	}
	// From here the call may be running: what happens is reported.
	out, err := receiveOutcome(ctx, stream, &hostv1.ToolCall{Name: req.Tool, Args: []byte(args)}, live, stderr)
	if caught := interrupt.Caught.Load(); caught != 0 && !out.done {
		fmt.Fprintf(stderr, "demiurge: interrupted; the %s call was cancelled\n", req.Tool)
		return int(caught), false
	}
	code = 0
	if err == nil && out.done {
		if live != nil {
			live.Close()
		}
		for _, w := range out.warnings {
			fmt.Fprintf(stderr, "warning: %s\n", w)
		}
		// The full CLI prints as the outcome comes, and a failure to
		// print ends its call as the host going away does.
		err = frontview.ToolOutcome(stdout, stderr, out.Outcome, req.JSON)
	}
	switch {
	case err != nil:
		fmt.Fprintf(stderr, "demiurge: the host (pid %d) went away during the %s call: %s\n", cl.PID, req.Tool, hostclient.GoneCause(err))
		code = 1
	case !out.OK():
		code = 1 // printed with the outcome (or none came: nothing to print)
	}
	if caught := interrupt.Caught.Load(); caught != 0 {
		return int(caught), false // the full CLI's exit after a signal
	}
	return code, false
}

// dialShaped dials the state's host with the host-shaping options the
// full CLI would give (hostopts.Config of the same values); false when
// the full CLI should: no host, a host of other options (Hello refuses
// them), a live commit only git reads, any failure.
func dialShaped(ctx context.Context, req frontargs.Request, state string) (*hostclient.Client, bool) {
	opts := hostopts.Options{Core: req.Core, Workspace: req.Workspace, PluginDir: req.PluginDir,
		OutputCapMiB: defaultOutputCapMiB, ArtifactBudgetMiB: defaultArtifactBudgetMiB, Timezone: req.Timezone}
	if opts.PluginDir == "" {
		opts.PluginDir = hostopts.BinaryDir()
	}
	if req.Core == "" {
		live, ok := liveRevision(state)
		if !ok {
			return nil, false
		}
		opts.LiveRevision = live
	}
	config, _, err := hostopts.Config(opts)
	if err != nil {
		return nil, false
	}
	// The principal is `mcp serve --principal`'s (none for the others).
	cl, err := hostclient.Dial(ctx, state, hostclient.DialOptions{Config: config, Principal: req.Principal})
	return cl, err == nil
}

// dialNeeding is dialShaped for a command that needs the host's protocol
// minor or later (what names the command in Needs's refusal, which the
// full CLI prints); false, with nothing left open, when the full CLI
// should answer.
func dialNeeding(ctx context.Context, req frontargs.Request, state string, minor int, what string) (*hostclient.Client, bool) {
	cl, ok := dialShaped(ctx, req, state)
	if !ok {
		return nil, false
	}
	if cl.Needs(minor, what) != nil {
		cl.Close()
		return nil, false
	}
	return cl, true
}

// outcome is a call's outcome and the warnings that came before it.
type outcome struct {
	frontview.Outcome
	warnings []string
	done     bool
}

// receiveOutcome sends the call and reads the session's messages until
// its outcome, as the full CLI's callViaHostPrinting does: approvals are
// asked on the terminal (with the card the host rendered), the call's
// output and progress shown on live (when set).
func receiveOutcome(ctx context.Context, stream hostv1.Host_SessionClient, call *hostv1.ToolCall, live *frontview.Live, stderr io.Writer) (outcome, error) {
	var o outcome
	if err := stream.Send(&hostv1.FrontEndMessage{Msg: &hostv1.FrontEndMessage_Call{Call: call}}); err != nil {
		return o, err
	}
	for {
		m, err := stream.Recv()
		if err != nil {
			if status.Code(err) == codes.Canceled && ctx.Err() != nil {
				return o, ctx.Err()
			}
			if st, ok := status.FromError(err); ok {
				return o, errors.New(st.Message())
			}
			return o, err
		}
		switch x := m.Msg.(type) {
		case *hostv1.HostMessage_Approval:
			a := prompt.Deny
			var q wireQuestion
			if err := json.Unmarshal(x.Approval.Request, &q); err != nil {
				fmt.Fprintf(stderr, "demiurge: the host's approval question could not be read (%v): denied\n", err)
			} else {
				a = ask(ctx, q, live, stderr)
			}
			if err := stream.Send(&hostv1.FrontEndMessage{Msg: &hostv1.FrontEndMessage_Answer{Answer: &hostv1.ApprovalAnswer{Id: x.Approval.Id, Answer: int32(a)}}}); err != nil {
				return o, err
			}
		case *hostv1.HostMessage_Event:
			var ev callEvent
			if live != nil && !o.done && json.Unmarshal(x.Event, &ev) == nil {
				switch ev.Type {
				case "call_output":
					live.Output(ev.Stream, ev.Text)
				case "call_progress":
					live.Progress(ev.Progress, ev.Fraction)
				}
			}
		case *hostv1.HostMessage_Warning:
			o.warnings = append(o.warnings, x.Warning)
		case *hostv1.HostMessage_Outcome:
			if err := json.Unmarshal(x.Outcome.Outcome, &o.Outcome); err != nil {
				return o, fmt.Errorf("the host's outcome could not be read: %w", err)
			}
			o.done = true
			stream.CloseSend()
			return o, nil
		case *hostv1.HostMessage_Ended:
			stream.CloseSend()
			return o, nil
		}
	}
}

// wireQuestion is what the front end reads of the host's approval
// request (hostd's wireRequest): the card as the full CLI renders it,
// and which answers it offers.
type wireQuestion struct {
	Card             string `json:"card"`
	SessionAllowable bool   `json:"session_allowable,omitempty"`
	SessionDeniable  bool   `json:"session_deniable,omitempty"`
}

// callEvent is the call's output or progress (hostd.CallEvent).
type callEvent struct {
	Type     string  `json:"type"`
	Stream   string  `json:"stream,omitempty"`
	Text     string  `json:"text,omitempty"`
	Progress string  `json:"progress,omitempty"`
	Fraction float64 `json:"fraction,omitempty"`
}

// ask asks the operator on the terminal, as the full CLI does: the live
// line held, a fresh prompt on the original stdin, anything but an
// answer denied.
func ask(ctx context.Context, q wireQuestion, live *frontview.Live, stderr io.Writer) prompt.Answer {
	if live != nil {
		live.Hold()
		defer live.Release()
	}
	t := &prompt.Terminal{In: os.Stdin, Out: stderr}
	a, err := t.Ask(ctx, prompt.Card{Body: q.Card, SessionAllowable: q.SessionAllowable, SessionDeniable: q.SessionDeniable})
	if err != nil {
		return prompt.Deny
	}
	return a
}

// liveRevision is the full CLI's: the live commit of the state's core
// repository, "" when there is none. ok is false when a repository is
// there but its live ref is not a loose commit id (packed, symbolic):
// only git can read it, and the full CLI does.
func liveRevision(state string) (string, bool) {
	if _, err := os.Stat(corepath.GitDir(state)); errors.Is(err, os.ErrNotExist) {
		return "", true
	}
	return corepath.ReadLive(state)
}
