package main

import (
	_ "embed"
	"fmt"
	"strings"

	"demiurge.dev/plugins/coding/fsops"
	"demiurge.dev/sdk"
)

//go:embed read_file.md
var readFileDoc string

func newReadFile() sdk.Tool {
	return sdk.Define(sdk.Spec{
		Name:        "read_file",
		Description: readFileDoc,
		Metadata:    sdk.Metadata{Risk: "low", Capability: "fs.read", ApprovalPolicy: "auto", DisplayPolicy: "summary"},
		Effect:      sdk.EffectRead,
		Subjects:    []sdk.Subject{sdk.ReadsPath("path")},
	}, readFile)
}

func readFile(ctx *sdk.Context, p fsops.ReadParams) (*sdk.Result, error) {
	ws, err := openWorkspace(ctx, false)
	if err != nil {
		return nil, err
	}
	defer ws.Close()
	r, err := fsops.ReadFile(ctx, ws, p)
	if err != nil {
		return refusal(err)
	}
	return &sdk.Result{Content: renderRead(r), Structured: r}, nil
}

// renderRead numbers the lines like cat -n and ends with a footer that
// says what was left out and how to continue.
func renderRead(r fsops.ReadResult) string {
	if r.Binary {
		// r.Note says the same in other words; once is enough.
		if r.SizeUnknown {
			return fmt.Sprintf("%s is a binary file (%s, size unknown: stat reports 0); it was not read as text.", r.Path, r.MimeType)
		}
		return fmt.Sprintf("%s is a binary file (%s, %d bytes); it was not read as text.", r.Path, r.MimeType, r.FileSize)
	}
	var b strings.Builder
	lines := strings.SplitAfter(r.Content, "\n")
	if n := len(lines); n > 0 && lines[n-1] == "" {
		lines = lines[:n-1]
	}
	for i, l := range lines {
		if r.StartLine > 0 {
			fmt.Fprintf(&b, "%6d\t", r.StartLine+i)
		}
		b.WriteString(l)
		if !strings.HasSuffix(l, "\n") {
			b.WriteByte('\n')
		}
	}
	fmt.Fprintf(&b, "[%s: ", r.Path)
	switch {
	case r.LinesReturned == 0:
		b.WriteString("no lines in this window")
	case r.StartLine > 0:
		fmt.Fprintf(&b, "lines %d-%d", r.StartLine, r.EndLine)
	default:
		fmt.Fprintf(&b, "last %d lines", r.LinesReturned)
	}
	switch {
	case r.TotalLinesKnown && r.LinesReturned == 0:
		fmt.Fprintf(&b, "; the file has %d lines", r.TotalLines)
	case r.TotalLinesKnown:
		fmt.Fprintf(&b, " of %d", r.TotalLines)
	}
	if r.SizeUnknown {
		// procfs and sysfs report 0: "1274 of 0 bytes" would be a lie.
		fmt.Fprintf(&b, "; %d bytes scanned (file size unknown: stat reports 0)", r.BytesScanned)
	} else {
		fmt.Fprintf(&b, "; %d of %d bytes scanned", r.BytesScanned, r.FileSize)
	}
	if r.SHA256 != "" {
		// What write_file's expected_sha256 takes to keep a later change.
		fmt.Fprintf(&b, "; sha256 %s", r.SHA256)
	}
	if r.Truncated {
		fmt.Fprintf(&b, "; stopped by %s", strings.Join(r.StoppedBy, ", "))
		if r.NextOffset > 0 {
			fmt.Fprintf(&b, "; continue with offset=%d", r.NextOffset)
		}
	}
	if r.LinesCut > 0 {
		fmt.Fprintf(&b, "; %d long lines cut", r.LinesCut)
	}
	if r.Note != "" {
		b.WriteString("; " + r.Note)
	}
	b.WriteString("]")
	return b.String()
}
