package main

import (
	_ "embed"
	"fmt"
	"strings"

	"demiurge.dev/plugins/coding/fsops"
	"demiurge.dev/sdk"
)

//go:embed search_files.md
var searchFilesDoc string

func newSearchFiles() sdk.Tool {
	return sdk.Define(sdk.Spec{
		Name:        "search_files",
		Description: searchFilesDoc,
		Metadata:    sdk.Metadata{Risk: "low", Capability: "fs.read", ApprovalPolicy: "auto", DisplayPolicy: "summary"},
		Effect:      sdk.EffectRead,
	}, searchFiles)
}

func searchFiles(ctx *sdk.Context, p fsops.SearchParams) (*sdk.Result, error) {
	ws, err := openWorkspace(ctx)
	if err != nil {
		return nil, err
	}
	defer ws.Close()
	r, err := fsops.Search(ctx, ws, p)
	if err != nil {
		return refusal(err)
	}
	return &sdk.Result{Content: renderSearch(r), Structured: r}, nil
}

func renderSearch(r fsops.SearchResult) string {
	var b strings.Builder
	for _, f := range r.Files {
		b.WriteString(f + "\n")
	}
	for _, m := range r.Matches {
		// Context lines use '-' like grep, so they cannot be taken for matches.
		for i, l := range m.Before {
			fmt.Fprintf(&b, "%s-%d- %s\n", m.Path, m.Line-len(m.Before)+i, l)
		}
		fmt.Fprintf(&b, "%s:%d: %s\n", m.Path, m.Line, m.Text)
		for i, l := range m.After {
			fmt.Fprintf(&b, "%s-%d- %s\n", m.Path, m.Line+1+i, l)
		}
	}
	total := fmt.Sprint(r.TotalCount)
	if r.TotalIsLowerBound {
		total = "at least " + total
	}
	fmt.Fprintf(&b, "[%s: count %d, total_count %s, dropped %d; %d files searched", r.Mode, r.Count, total, r.Dropped, r.FilesSearched)
	if len(r.StoppedBy) > 0 {
		fmt.Fprintf(&b, "; stopped by %s", strings.Join(r.StoppedBy, ", "))
	}
	if r.ExcludedSensitive > 0 {
		fmt.Fprintf(&b, "; %d credential-like paths left out", r.ExcludedSensitive)
	}
	if r.Note != "" {
		b.WriteString("; " + r.Note)
	}
	b.WriteString("]")
	return b.String()
}
