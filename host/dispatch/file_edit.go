package dispatch

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"maps"
	"slices"
	"strings"

	"demiurge.dev/catalog"
	"demiurge.dev/host/approval"
	"demiurge.dev/host/internal/jsonenc"
	"demiurge.dev/host/redact"
	"demiurge.dev/shared/textedit"
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
	b := p.fileBase(s.Real)
	if !b.ok {
		return nil
	}
	old, absent := b.text, b.absent
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
		switch n := textedit.CountStarts(old, oldS); {
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

// fileBase is a written file as it was read for its diff: its text, or
// absent (no file), ok false where no diff is shown.
type fileBase struct {
	text       string
	absent, ok bool
}

// fileBase reads the file at path once per call (readForDiff): the card's
// diff, the edit and the write's binding (bindWriteToBase) all describe
// this one read.
func (p *prepared) fileBase(path string) fileBase {
	p.baseOnce.Do(func() {
		var b fileBase
		b.text, b.absent, b.ok = readForDiff(path)
		p.base = b
	})
	return p.base
}

// expectedSHA256Arg is write_file's argument that binds a write to the
// content it replaces (fsops.WriteParams.ExpectedSHA256).
const expectedSHA256Arg = "expected_sha256"

// bindWriteToBase binds a write_file-style call (catalog.PreviewFileWrite)
// whose diff was shown or reported to the file as it was read for it: the
// plugin gets expected_sha256 (the content's sha256, or "absent" for a new
// file) and writes nothing if the file is otherwise by then. Without it,
// a save made while the approver read the card (or between the read and
// the write) was silently replaced, and the outcome's edit reported a
// change that was not the one made. A model's own expected_sha256 is kept
// when it names the same content and refused when it does not (the file
// the approver saw is not the one the model expected).
func (p *prepared) bindWriteToBase(inv *Invocation) error {
	kind, s := p.fileWriteSubject()
	if kind != catalog.PreviewFileWrite || s == nil {
		return nil
	}
	b := p.fileBase(s.Real)
	if !b.ok {
		return nil
	}
	want := "absent"
	if !b.absent {
		sum := sha256.Sum256([]byte(b.text))
		want = hex.EncodeToString(sum[:])
	}
	if given, ok := p.args[expectedSHA256Arg]; ok {
		if given != want {
			return fmt.Errorf("the file is not the one expected_sha256 names (it changed since it was read): nothing was written; read it again and retry")
		}
		return nil
	}
	args := make(map[string]any, len(p.args)+1)
	maps.Copy(args, p.args)
	args[expectedSHA256Arg] = want
	raw, err := jsonenc.Append(make([]byte, 0, len(inv.Args)+96), args, true)
	if err != nil {
		return err
	}
	inv.Args = raw
	return nil
}
