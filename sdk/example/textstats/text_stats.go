package main

import (
	"bufio"
	_ "embed"
	"fmt"
	"io"
	"unicode"
	"unicode/utf8"

	"demiurge.dev/sdk"
)

//go:embed text_stats.md
var textStatsDoc string

type textStatsParams struct {
	Path string `json:"path" jsonschema_description:"File to count, relative to the workspace"`
}

type textStats struct {
	Path  string `json:"path"`
	Lines int64  `json:"lines"`
	Words int64  `json:"words"`
	Chars int64  `json:"chars"`
	Bytes int64  `json:"bytes"`
}

func newTextStats() sdk.Tool {
	return sdk.Define(sdk.Spec{
		Name:        "text_stats",
		Description: textStatsDoc,
		Metadata:    sdk.Metadata{Risk: "low", Capability: "fs.read", ApprovalPolicy: "auto"},
		Effect:      sdk.EffectRead,
		Subjects:    []sdk.Subject{sdk.ReadsPath("path")},
	}, countText)
}

func countText(ctx *sdk.Context, p textStatsParams) (*sdk.Result, error) {
	// The path the host checked, approved and audited: in the workspace
	// (through an os.Root on it), or outside only where the host granted it.
	f, err := ctx.Open("path")
	if err != nil {
		return sdk.Errorf("not_found", "cannot open %s: %v", p.Path, err), nil
	}
	defer f.Close()
	st, err := count(ctx, f)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", p.Path, err)
	}
	st.Path = p.Path
	return sdk.JSON(st), nil
}

// count reads f to its end: lines, words (runs of non-space), characters
// (valid UTF-8 sequences) and bytes, with a progress message every 16 MiB.
func count(ctx *sdk.Context, f io.Reader) (textStats, error) {
	var st textStats
	r := bufio.NewReaderSize(f, 64<<10)
	inWord := false
	for {
		if ctx.Err() != nil {
			return st, ctx.Err()
		}
		c, size, err := r.ReadRune()
		if err == io.EOF {
			return st, nil
		}
		if err != nil {
			return st, err
		}
		st.Bytes += int64(size)
		if c != utf8.RuneError || size > 1 {
			st.Chars++
		}
		if c == '\n' {
			st.Lines++
		}
		space := unicode.IsSpace(c)
		if !space && !inWord {
			st.Words++
		}
		inWord = !space
		if st.Bytes%(16<<20) == 0 {
			_ = ctx.Progress(fmt.Sprintf("%d bytes counted", st.Bytes), -1)
		}
	}
}
