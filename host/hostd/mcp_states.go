package hostd

import (
	"context"
	"encoding/json"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"demiurge.dev/host/approval"
	"demiurge.dev/host/mcp"
	"demiurge.dev/host/toolhost"
	"demiurge.dev/shared/hostv1"
)

// MCPStates is `demiurge mcp list|test` in the host (minor 9), so the
// mcp.connect events they cause are written by the process that holds
// the store. A fresh session of the principal connects, its connect gates
// judged by the front end's --approve rules, no one asked: list resolves
// its catalog (every declared server its gate allows), test connects the
// one server now.
func (s *Server) MCPStates(ctx context.Context, req *hostv1.MCPStatesRequest) (*hostv1.MCPStatesResponse, error) {
	approvals, err := frontEndApprovals(s.h.Approvals, req.Approve, approval.DenyAll{})
	if err != nil {
		return nil, status.Error(codes.InvalidArgument, err.Error())
	}
	ses := s.h.OpenSessionAs(s.principal(req.Principal), false)
	defer ses.End()
	var states []mcp.State
	if req.Server == "" {
		if _, err := ses.CatalogWith(ctx, toolhost.TurnOptions{Approvals: approvals, DurableEvents: true}); err != nil {
			return nil, status.Errorf(codes.Internal, "the catalog could not be resolved: %v", err)
		}
		states = ses.MCPStates()
	} else {
		st, err := ses.TestMCPWith(ctx, req.Server, approvals)
		if err != nil {
			return nil, status.Error(codes.FailedPrecondition, err.Error())
		}
		states = []mcp.State{st}
	}
	if states == nil {
		states = []mcp.State{}
	}
	data, err := json.Marshal(states)
	return &hostv1.MCPStatesResponse{States: data, CliFlags: s.h.Core.CLIFlags()}, err
}
