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
