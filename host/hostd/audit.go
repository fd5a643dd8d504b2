package hostd

import (
	"context"
	"encoding/json"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"demiurge.dev/host/runtime"
	"demiurge.dev/shared/hostv1"
)

// Audit is `demiurge audit` while the host holds the store.
func (s *Server) Audit(_ context.Context, req *hostv1.AuditRequest) (*hostv1.AuditResponse, error) {
	if req.Limit < 0 {
		return nil, status.Error(codes.InvalidArgument, "--limit must be 0 or more")
	}
	store, err := s.h.Store()
	if err != nil {
		return nil, status.Error(codes.Internal, err.Error())
	}
	evs, err := store.Events(runtime.EventQuery{Tool: req.Tool, Kind: req.Kind, Limit: int(req.Limit), NewestFirst: true})
	if err != nil {
		return nil, status.Error(codes.Internal, err.Error())
	}
	b, err := json.Marshal(evs)
	if err != nil {
		return nil, status.Error(codes.Internal, err.Error())
	}
	return &hostv1.AuditResponse{Events: b}, nil
}
