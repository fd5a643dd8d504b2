package hostd

import (
	"context"
	"fmt"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"demiurge.dev/catalog"
	"demiurge.dev/host/toolhost"
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
	return renderCatalog(cat, ses.Warnings(), req, mode), nil
}

// sessionCatalog answers a session stream's catalog request (minor 7):
// the stream's own session's catalog, as the in-process /tools shows it
// (the tools it activated, the MCP servers it connected), resolved with
// the front end's approvals, so a connect it needs is asked there.
func (s *Server) sessionCatalog(ctx context.Context, ses *toolhost.Session, approve []string, fe *frontEnd, req *hostv1.CatalogRequest) *hostv1.CatalogResponse {
	mode, err := catalog.ParseDisplayMode(req.DisplayMode)
	if err != nil {
		return &hostv1.CatalogResponse{Error: err.Error()}
	}
	approvals, err := frontEndApprovals(s.h.Approvals, approve, fe)
	if err != nil {
		return &hostv1.CatalogResponse{Error: err.Error()}
	}
	cat, err := ses.CatalogWith(ctx, toolhost.TurnOptions{Approvals: approvals})
	if err != nil {
		return &hostv1.CatalogResponse{Error: "the catalog could not be resolved: " + err.Error()}
	}
	return renderCatalog(cat, ses.Warnings(), req, mode)
}

// renderCatalog is the list in mode, or the one tool req shows.
func renderCatalog(cat *catalog.Catalog, warnings []string, req *hostv1.CatalogRequest, mode catalog.DisplayMode) *hostv1.CatalogResponse {
	res := &hostv1.CatalogResponse{Notes: warnings}
	if req.Show == "" {
		res.Text = []byte(cat.Display(mode))
		return res
	}
	e, ok := cat.Lookup(req.Show)
	if !ok {
		res.Error = fmt.Sprintf("no tool %q in this catalog", req.Show)
		return res
	}
	res.Text = []byte(e.Detail())
	return res
}
