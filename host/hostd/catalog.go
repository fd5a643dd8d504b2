package hostd

import (
	"context"
	"fmt"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"demiurge.dev/catalog"
	"demiurge.dev/shared/hostv1"
)

// Catalog renders the catalog a fresh session of the front end's
// principal resolves to (the interactive session's /tools): the list in
// the display mode asked for, or one tool's detail.
func (s *Server) Catalog(ctx context.Context, req *hostv1.CatalogRequest) (*hostv1.CatalogResponse, error) {
	mode, err := catalog.ParseDisplayMode(req.DisplayMode)
	if err != nil {
		return &hostv1.CatalogResponse{Error: err.Error()}, nil
	}
	ses := s.h.OpenSessionAs(s.principal(req.Principal), false)
	defer ses.End()
	cat, err := ses.Catalog(ctx)
	if err != nil {
		return nil, status.Errorf(codes.Internal, "the catalog could not be resolved: %v", err)
	}
	res := &hostv1.CatalogResponse{Notes: ses.Warnings()}
	if req.Show == "" {
		res.Text = []byte(cat.Display(mode))
		return res, nil
	}
	e, ok := cat.Lookup(req.Show)
	if !ok {
		res.Error = fmt.Sprintf("no tool %q in this catalog", req.Show)
		return res, nil
	}
	res.Text = []byte(e.Detail())
	return res, nil
}
