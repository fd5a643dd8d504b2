package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"

	"github.com/urfave/cli/v2"

	"demiurge.dev/cmd/internal/termsession"
	"demiurge.dev/host/approval"
	"demiurge.dev/host/hostd"
	"demiurge.dev/shared/hostv1"
)

// hostSession is the session stream on the state's long-lived host
// (termsession.HostSession: the small front end's session is the same
// code).
type hostSession = termsession.HostSession

// openHostView opens a session stream whose events go to view (ACP's;
// the terminal's session opens its own in termsession.RunRemote).
// editor is what the view's editor offers (an ACP client's fs
// capabilities, minor 10), nil for none.
func openHostView(c *cli.Context, resume string, view termsession.HostView, approver approval.Provider, editor *hostv1.EditorCapabilities) (*hostSession, error) {
	cl, err := connectHost(c)
	if err != nil {
		return nil, err
	}
	hs, err := termsession.OpenHostSession(cl, hostOpenOptions(c, resume, editor), view, askWith(view.Warn, approver))
	return hs, openError(err)
}

// hostOpenOptions are this front end's flags as the session's opening.
func hostOpenOptions(c *cli.Context, resume string, editor *hostv1.EditorCapabilities) termsession.OpenOptions {
	f := modelFlagsOf(c)
	return termsession.OpenOptions{Principal: c.String("principal"), Approve: c.StringSlice("approve"), Resume: resume, Editor: editor,
		Chat: &hostv1.RunTurn{Model: f.Model, BaseUrl: f.BaseURL, MaxSteps: int32(f.MaxSteps), ContextWindow: int32(f.ContextWindow),
			MaxOutputTokens: int32(f.MaxOutputTokens)},
		Env: os.Getenv}
}

// openError is the host's refusal to open the chat as this CLI exits on
// it (a usage error: 2).
func openError(err error) error {
	var refused *termsession.OpenRefused
	if !errors.As(err, &refused) {
		return err
	}
	if refused.Code == exitUsage {
		return usageError{errors.New(refused.Msg)}
	}
	return cli.Exit("demiurge: "+refused.Msg, refused.Code)
}

// askWith answers the host's approval requests through approver, with
// the request read back into approval.Request.
func askWith(warn func(string), approver approval.Provider) termsession.Approver {
	return func(ctx context.Context, b []byte) int32 {
		req, err := hostd.DecodeRequest(b)
		if err != nil {
			warn(fmt.Sprintf("demiurge: the host's approval question could not be read (%v): denied\n", err))
			return int32(approval.Deny)
		}
		a, err := approver.Ask(ctx, req)
		if err != nil {
			return int32(approval.Deny)
		}
		return int32(a)
	}
}

// hostAllows is /approvals through the host: this session's allows as
// the host lists them, after the revoke asked for (0: none).
func hostAllows(hs *hostSession, revoke int, all bool) ([]approval.Allow, string, error) {
	raw, note, err := hs.Allows(revoke, all)
	if err != nil {
		return nil, "", err
	}
	var list []approval.Allow
	if err := json.Unmarshal(raw, &list); err != nil {
		return nil, "", fmt.Errorf("the host's approvals could not be read: %w", err)
	}
	return list, note, nil
}
