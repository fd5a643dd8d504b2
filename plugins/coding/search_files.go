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
	ws, err := openWorkspace(ctx, false)
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
	renderMatches(&b, r.Matches)
	total := fmt.Sprint(r.TotalCount)
	if r.TotalIsLowerBound {
		total = "at least " + total
	}
	fmt.Fprintf(&b, "[%s: count %d, total_count %s, dropped %d; %d files searched", r.Mode, r.Count, total, r.Dropped, r.FilesSearched)
	// The note may already say these; the footer says each thing once.
	if stopped := "stopped by " + strings.Join(r.StoppedBy, ", "); len(r.StoppedBy) > 0 && !strings.Contains(r.Note, stopped) {
		b.WriteString("; " + stopped)
	}
	if excluded := fmt.Sprintf("%d credential-like paths left out", r.ExcludedSensitive); r.ExcludedSensitive > 0 && !strings.Contains(r.Note, excluded) {
		b.WriteString("; " + excluded)
	}
	if r.Note != "" {
		b.WriteString("; " + r.Note)
	}
	b.WriteString("]")
	return b.String()
}

// renderMatches writes matches like grep: "path:line: text" for a matching
// line, "path-line- text" for context, so that context cannot be taken for
// a match. Where the context of neighbouring matches overlaps, each line is
// written once, a matching line always as a match, and "--" separates
// groups that are not contiguous. Matches come sorted by path and line.
func renderMatches(b *strings.Builder, ms []fsops.SearchMatch) {
	withContext := false
	for _, m := range ms {
		withContext = withContext || len(m.Before) > 0 || len(m.After) > 0
	}
	lastPath, lastLine := "", 0
	emit := func(path string, line int, sep byte, text string) {
		if path == lastPath && line <= lastLine {
			return // already written as the context of the match before
		}
		if withContext && lastPath != "" && (path != lastPath || line > lastLine+1) {
			b.WriteString("--\n")
		}
		fmt.Fprintf(b, "%s%c%d%c %s\n", path, sep, line, sep, text)
		lastPath, lastLine = path, line
	}
	for i, m := range ms {
		for j, l := range m.Before {
			emit(m.Path, m.Line-len(m.Before)+j, '-', l)
		}
		emit(m.Path, m.Line, ':', m.Text)
		for j, l := range m.After {
			n := m.Line + 1 + j
			if i+1 < len(ms) && ms[i+1].Path == m.Path && ms[i+1].Line <= n {
				break // the next match is written as a match
			}
			emit(m.Path, n, '-', l)
		}
	}
}
