package dispatch

import (
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"syscall"

	"github.com/pmezard/go-difflib/difflib"

	"demiurge.dev/catalog"
	"demiurge.dev/host/policy"
	"demiurge.dev/host/redact"
)

// A file write's approval shows what it changes as a unified diff rather
// than its arguments as JSON. Both bounds keep a card on one screen.
const (
	maxDiffSource = 256 << 10 // a longer current file is not read for a diff
	maxDiffLines  = 40
)

// diffPreview is the unified diff a call of a tool that declares a file
// preview (write_file, patch: catalog.PreviewFileWrite, PreviewFilePatch)
// would make to its workspace file, bounded, with well-known credential
// formats redacted; ok is false for other calls and where no diff is shown
// (the path outside the workspace or credential-like, the file not a
// regular one, or too large).
func (p *prepared) diffPreview(known []redact.Secret) (string, bool) {
	kind, s := p.fileWriteSubject()
	if s == nil {
		return "", false
	}
	var before, after string
	switch kind {
	case catalog.PreviewFileWrite:
		content, ok := p.args["content"].(string)
		if !ok {
			return "", false
		}
		b := p.fileBase(s.Real)
		if !b.ok {
			return "", false
		}
		before, after = b.text, content
	case catalog.PreviewFilePatch:
		oldS, ok1 := p.args["old_string"].(string)
		newS, ok2 := p.args["new_string"].(string)
		if !ok1 || !ok2 {
			return "", false
		}
		before, after = oldS, newS
	}
	diff, err := difflib.GetUnifiedDiffString(difflib.UnifiedDiff{
		A: splitLines(before), B: splitLines(after),
		FromFile: "a/" + s.RealRel, ToFile: "b/" + s.RealRel, Context: 3,
	})
	if err != nil || diff == "" {
		return "", false
	}
	if kind == catalog.PreviewFilePatch {
		if all, _ := p.args["replace_all"].(bool); all {
			diff = "(every occurrence)\n" + diff
		}
	}
	return boundLines(redact.TextOf(diff, slices.Concat(p.secretsInArgs(), known)), maxDiffLines), true
}

// fileWriteSubject is the preview kind of a tool that declares a file
// preview and the workspace file its call writes; nil for other calls and
// where nothing of the file may be shown (outside the workspace, or
// credential-like).
func (p *prepared) fileWriteSubject() (string, *policy.SubjectFact) {
	if p.entry == nil || p.assess == nil {
		return "", nil
	}
	kind := p.entry.Spec.ApprovalPreviewKind()
	if kind != catalog.PreviewFileWrite && kind != catalog.PreviewFilePatch {
		return "", nil
	}
	for i := range p.assess.Subjects {
		if f := &p.assess.Subjects[i]; f.Kind == "path" && f.Access == catalog.AccessWrite {
			if !f.Inside || !f.RealInside || f.Sensitive || f.RealRel == "" {
				return "", nil
			}
			return kind, f
		}
	}
	return "", nil
}

// readForDiff reads the current file at path: "" and absent when there is
// none (a new file); ok is false for anything but a regular file within
// maxDiffSource. The path is not followed if it became a link.
func readForDiff(path string) (text string, absent, ok bool) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if os.IsNotExist(err) {
		return "", true, true
	}
	if err != nil {
		return "", false, false
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil || !st.Mode().IsRegular() || st.Size() > maxDiffSource {
		return "", false, false
	}
	b, err := io.ReadAll(io.LimitReader(f, maxDiffSource+1))
	if err != nil || len(b) > maxDiffSource {
		return "", false, false
	}
	return string(b), false, true
}

// splitLines splits s after each newline; a last line without one gets
// one, so that the diff's lines all end alike.
func splitLines(s string) []string {
	lines := strings.SplitAfter(s, "\n")
	if lines[len(lines)-1] == "" {
		return lines[:len(lines)-1]
	}
	lines[len(lines)-1] += "\n"
	return lines
}

// boundLines keeps the first n lines of s and says how many it left out.
func boundLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) <= n {
		return strings.Join(lines, "\n")
	}
	return strings.Join(lines[:n], "\n") + fmt.Sprintf("\n… %d more lines", len(lines)-n)
}
