package main

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/urfave/cli/v2"
	"google.golang.org/grpc/status"

	"demiurge.dev/host/hostd"
	"demiurge.dev/host/mcp"
	"demiurge.dev/shared/hostv1"
)

// reviewer is where `mcp review` reads and decides a server's pending
// definitions: the running host (whose MCP pool reads the pins), or this
// process when no host runs (or DEMIURGE_HOST=off).
type reviewer struct {
	inspect func() (mcp.State, []mcp.ReviewItem, error)
	decide  func(hashes map[string]string, accept bool) error
	// command is the review's command line, for the hint to decide later.
	command string
	close   func()
}

func openReviewer(c *cli.Context, server string) (*reviewer, error) {
	if hostEnabled() {
		state, err := stateDir(c)
		if err != nil {
			return nil, err
		}
		if _, running := hostd.Running(state); running {
			return hostReviewer(c, server)
		}
	}
	h, err := openHost(c, nil)
	if err != nil {
		return nil, err
	}
	return &reviewer{
		inspect: func() (mcp.State, []mcp.ReviewItem, error) {
			st, err := h.TestMCP(c.Context, server)
			if err != nil {
				return st, nil, err
			}
			items, err := mcp.PendingReview(h.StateDir, server)
			return st, items, err
		},
		decide: func(hashes map[string]string, accept bool) error {
			return mcp.DecideReview(h.StateDir, server, hashes, accept, time.Now())
		},
		command: h.Core.Command("mcp review " + server),
		close:   func() { h.Close() },
	}, nil
}

// hostReviewer is `mcp review` through the running host (MCPReview,
// minor 8): it works while the host is busy, and the connect is judged
// by this front end's --approve rules.
func hostReviewer(c *cli.Context, server string) (*reviewer, error) {
	cl, err := connectHost(c)
	if err != nil {
		return nil, err
	}
	if err := cl.Needs(8, "mcp review"); err != nil {
		cl.Close()
		return nil, err
	}
	r := &reviewer{close: func() { cl.Close() }}
	ask := func(req *hostv1.MCPReviewRequest) (*hostv1.MCPReviewResponse, error) {
		req.Principal, req.Server, req.Approve = c.String("principal"), server, c.StringSlice("approve")
		res, err := cl.MCPReview(context.WithoutCancel(c.Context), req)
		if err != nil {
			return nil, errors.New(status.Convert(err).Message())
		}
		return res, nil
	}
	r.inspect = func() (mcp.State, []mcp.ReviewItem, error) {
		var st mcp.State
		var items []mcp.ReviewItem
		res, err := ask(&hostv1.MCPReviewRequest{})
		if err != nil {
			return st, nil, err
		}
		r.command = res.Command
		if err := json.Unmarshal(res.State, &st); err != nil {
			return st, nil, err
		}
		return st, items, json.Unmarshal(res.Pending, &items)
	}
	r.decide = func(hashes map[string]string, accept bool) error {
		decide := "reject"
		if accept {
			decide = "accept"
		}
		_, err := ask(&hostv1.MCPReviewRequest{Decide: decide, Hashes: hashes})
		return err
	}
	return r, nil
}
