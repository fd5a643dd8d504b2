package hostd

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"demiurge.dev/catalog"
	"demiurge.dev/host/policy"
	"demiurge.dev/host/toolhost"
	"demiurge.dev/shared/hostv1"
)

// Catalog renders the catalog a fresh session of the front end's
// principal resolves to (the interactive session's /tools): the list in
// the display mode asked for, or one tool's detail.
func (s *Server) Catalog(ctx context.Context, req *hostv1.CatalogRequest) (*hostv1.CatalogResponse, error) {
	mode := catalog.DisplaySummary
	if req.Show == "" || req.DisplayMode != "" { // show has no display mode
		var err error
		if mode, err = catalog.ParseDisplayMode(req.DisplayMode); err != nil {
			return &hostv1.CatalogResponse{Error: err.Error()}, nil
		}
	}
	ses := s.h.OpenSessionAs(s.principal(req.Principal), false)
	defer ses.End()
	cat, err := ses.Catalog(ctx)
	if err != nil {
		return nil, status.Errorf(codes.Internal, "the catalog could not be resolved: %v", err)
	}
	return renderCatalog(cat, ses.Warnings(), req, mode, s.h), nil
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
	if req.Show == "" {
		// As the in-process /tools shows it: the display only.
		return &hostv1.CatalogResponse{Notes: ses.Warnings(), Text: []byte(cat.Display(mode))}
	}
	return renderCatalog(cat, ses.Warnings(), req, mode, s.h)
}

// renderCatalog is the catalog as `tools list` prints it (the display in
// mode, the entries' JSON, or a provider's definitions), or the one tool
// req shows (`tools show`, its JSON summary with req.Json); a tool that is
// missing or unavailable is an error worded as the in-process command's
// (grantsFile is the host's grants file, named for an authored tool).
func renderCatalog(cat *catalog.Catalog, warnings []string, req *hostv1.CatalogRequest, mode catalog.DisplayMode, h *toolhost.Host) *hostv1.CatalogResponse {
	grantsFile := h.GrantsFile()
	res := &hostv1.CatalogResponse{Notes: warnings}
	var b bytes.Buffer
	if req.Show == "" {
		o := catalog.ListOptions{Mode: mode, JSON: req.Json}
		if req.Provider != "" {
			p, err := catalog.ParseProvider(req.Provider)
			if err != nil {
				res.Error = "--provider: " + err.Error()
				return res
			}
			o.Provider = p
		}
		if err := cat.WriteList(&b, o); err != nil {
			res.Error = err.Error()
			return res
		}
		res.Text = b.Bytes()
		return res
	}
	e, ok := cat.Lookup(req.Show)
	if !ok {
		for _, u := range cat.Unavailable() {
			if u.Tool == req.Show {
				res.Error = fmt.Sprintf("tool %q is unavailable: %s", req.Show, policy.UnavailableReason(u, grantsFile))
				return res
			}
		}
		var names []string
		for _, e := range cat.Entries() {
			names = append(names, e.Spec.Name)
		}
		res.Error = fmt.Sprintf("no tool %q in this catalog", req.Show)
		if sug := catalog.Suggest(req.Show, names); sug != "" && sug != req.Show {
			res.Error += fmt.Sprintf("; did you mean %q?", sug)
		}
		res.Error += "; see 'demiurge tools list'"
		return res
	}
	if !req.Json {
		res.Text = []byte(h.ToolDetail(e))
		return res
	}
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(e.Summary()); err != nil {
		res.Error = err.Error()
		return res
	}
	res.Text = b.Bytes()
	return res
}
