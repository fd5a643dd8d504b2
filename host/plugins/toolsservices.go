package plugins

import (
	"context"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"demiurge.dev/shared/toolsetv1"
)

// ToolsList answers with the calling turn's catalog as the model sees it:
// the host, not the plugin, knows which tools this turn resolved and with
// which effective policy.
func (h *hostServices) ToolsList(ctx context.Context, req *toolsetv1.ToolsListRequest) (*toolsetv1.ToolsListResponse, error) {
	hk, err := h.hooks(req.GetInvocationId())
	if err != nil {
		return nil, err
	}
	if hk.Tools == nil {
		return nil, status.Error(codes.FailedPrecondition, "the tool catalog is not available in this turn")
	}
	tools, err := hk.Tools(ctx)
	if err != nil {
		return nil, status.Error(codes.Unavailable, err.Error())
	}
	return &toolsetv1.ToolsListResponse{Tools: tools}, nil
}

// SearchCapabilities searches the calling session's deferred tools and
// activates the matches: the host holds the session's catalog and its
// disclosure, the plugin only relays the query.
func (h *hostServices) SearchCapabilities(ctx context.Context, req *toolsetv1.SearchCapabilitiesRequest) (*toolsetv1.SearchCapabilitiesResponse, error) {
	hk, err := h.hooks(req.GetInvocationId())
	if err != nil {
		return nil, err
	}
	if hk.Capabilities == nil {
		return nil, status.Error(codes.FailedPrecondition, "no deferred tools can be searched in this turn")
	}
	resp, err := hk.Capabilities(ctx, req.GetQuery(), int(req.GetLimit()))
	if err != nil {
		return nil, status.Error(codes.InvalidArgument, err.Error())
	}
	return resp, nil
}
