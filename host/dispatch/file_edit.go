package dispatch

import (
	"slices"
	"strings"

	"demiurge.dev/catalog"
	"demiurge.dev/host/approval"
	"demiurge.dev/host/redact"
)

// fileEdit is what p's file write does to its file (approval.FileEdit),
// for a front end that shows writes as diffs: read once, when an approver
// first asks or just before the write runs, so that the approval and the
// outcome show the same change. nil for any other call and wherever
// diffPreview would show nothing (the same bounds), and for a patch whose
// old_string does not match as the tool requires (the tool refuses it).
func (p *prepared) fileEdit(secrets []redact.Secret) *approval.FileEdit {
	p.editOnce.Do(func() { p.edit = p.readFileEdit(secrets) })
	return p.edit
}

func (p *prepared) readFileEdit(secrets []redact.Secret) *approval.FileEdit {
	kind, s := p.fileWriteSubject()
	if s == nil {
		return nil
	}
	old, absent, ok := readForDiff(s.Real)
	if !ok {
		return nil
	}
	var after string
	switch kind {
	case catalog.PreviewFileWrite:
		content, ok := p.args["content"].(string)
		if !ok {
			return nil
		}
		after = content
	case catalog.PreviewFilePatch:
		oldS, ok1 := p.args["old_string"].(string)
		newS, ok2 := p.args["new_string"].(string)
		all, _ := p.args["replace_all"].(bool)
		if !ok1 || !ok2 || oldS == "" || absent {
			return nil
		}
		switch n := strings.Count(old, oldS); {
		case n == 0, n > 1 && !all:
			return nil
		case all:
			after = strings.ReplaceAll(old, oldS, newS)
		default:
			after = strings.Replace(old, oldS, newS, 1)
		}
	}
	if len(after) > approval.MaxEditText {
		return nil
	}
	all := slices.Concat(p.secretsInArgs(), secrets)
	return &approval.FileEdit{Path: s.Real, OldText: redact.TextOf(old, all), NewFile: absent, NewText: redact.TextOf(after, all)}
}
