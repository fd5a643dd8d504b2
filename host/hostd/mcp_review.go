package hostd

import (
	"context"
	"encoding/json"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"demiurge.dev/host/approval"
	"demiurge.dev/host/mcp"
	"demiurge.dev/shared/hostv1"
)

// MCPReview is `demiurge mcp review` in the host (minor 8): the pins it
// decides are read by this process's MCP pool, and mcp.DecideReview's
// lock is a process's, so the decision is made here. Without a decision
// the server is connected now, as a turn would (its connect gate judged
// by the front end's --approve rules; no one is asked), and its state and
// pending definitions are answered; with one, exactly the definitions
// shown (their hashes) are accepted or rejected.
func (s *Server) MCPReview(ctx context.Context, req *hostv1.MCPReviewRequest) (*hostv1.MCPReviewResponse, error) {
	if req.Server == "" {
		return nil, status.Error(codes.InvalidArgument, "mcp review takes one server name")
	}
	switch req.Decide {
	case "accept", "reject":
		if err := mcp.DecideReview(s.h.StateDir, req.Server, req.Hashes, req.Decide == "accept", time.Now()); err != nil {
			return nil, status.Error(codes.FailedPrecondition, err.Error())
		}
		return &hostv1.MCPReviewResponse{}, nil
	case "":
	default:
		return nil, status.Errorf(codes.InvalidArgument, "decide is accept or reject, not %q", req.Decide)
	}
	approvals, err := frontEndApprovals(s.h.Approvals, req.Approve, approval.DenyAll{})
	if err != nil {
		return nil, status.Error(codes.InvalidArgument, err.Error())
	}
	ses := s.h.OpenSessionAs(s.principal(req.Principal), false)
	defer ses.End()
	st, err := ses.TestMCPWith(ctx, req.Server, approvals)
	if err != nil {
		return nil, status.Error(codes.FailedPrecondition, err.Error())
	}
	items, err := mcp.PendingReview(s.h.StateDir, req.Server)
	if err != nil {
		return nil, status.Error(codes.Internal, err.Error())
	}
	if items == nil {
		items = []mcp.ReviewItem{}
	}
	stJSON, _ := json.Marshal(st)
	itemsJSON, _ := json.Marshal(items)
	return &hostv1.MCPReviewResponse{State: stJSON, Pending: itemsJSON, Command: s.h.Core.Command("mcp review " + req.Server)}, nil
}
