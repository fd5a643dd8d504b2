package skills

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"demiurge.dev/plugins/coding/fsops"
	"demiurge.dev/shared/skillpath"
	"demiurge.dev/shared/textedit"
)

// Change is one skill_manage call.
type Change struct {
	Action     string `json:"action" jsonschema:"enum=create,enum=update,enum=patch,enum=write_file,enum=remove_file,enum=delete" jsonschema_description:"create or update: write the whole SKILL.md (content); patch: replace old_string with new_string in SKILL.md or in file_path; write_file / remove_file: a support file (file_path); delete: the whole skill."`
	Name       string `json:"name" jsonschema_description:"The skill, which is also its directory name: lowercase letters, digits and '-'."`
	FilePath   string `json:"file_path,omitempty" jsonschema_description:"A support file inside the skill, under references/, templates/, scripts/ or assets/ (e.g. references/api.md). For patch, leave it out to edit SKILL.md."`
	Content    string `json:"content,omitempty" jsonschema_description:"create, update: the whole SKILL.md, starting with front matter (---, name: <the skill's name>, description: ..., ---). write_file: the file's whole content."`
	OldString  string `json:"old_string,omitempty" jsonschema_description:"patch: the exact text to replace; it must occur exactly once unless replace_all is set."`
	NewString  string `json:"new_string,omitempty" jsonschema_description:"patch: the text to put in its place."`
	ReplaceAll bool   `json:"replace_all,omitempty" jsonschema_description:"patch: replace every occurrence."`
}

// Outcome says what a change did.
type Outcome struct {
	Action       string `json:"action"`
	Skill        string `json:"skill"`
	Path         string `json:"path"` // relative to the skills root
	Created      bool   `json:"created,omitempty"`
	Bytes        int64  `json:"bytes,omitempty"`
	Replacements int    `json:"replacements,omitempty"`
	Diff         string `json:"diff,omitempty"`
}

// refused is a refusal of the model's input, as fsops words them.
func refused(path string, format string, args ...any) error {
	return &fsops.RefusedError{Path: path, Reason: fmt.Sprintf(format, args...), Kind: fsops.ErrInvalidArgument}
}

// Check applies every refusal Apply would, changing nothing: the host asks
// it before anyone is asked to approve the change (a patch whose text is
// absent or not unique, a SKILL.md without valid front matter, a create
// of a skill that exists or a change of one that does not).
func (r *Root) Check(ctx context.Context, c Change) error {
	_, err := r.plan(ctx, c)
	return err
}

// plan checks c and returns the target, and for a SKILL.md patch the new
// text.
type planned struct {
	target  skillpath.Target
	content string // create, update, SKILL.md patch: the new SKILL.md
	matches int
	// base is the sha256 of the SKILL.md a patch of it was computed from
	// ("absent" for create): its write replaces that file (creates one)
	// or nothing, so a save made between the check and the write is kept.
	base string
}

func (r *Root) plan(ctx context.Context, c Change) (planned, error) {
	t, err := skillpath.Resolve(c.Action, c.Name, c.FilePath)
	if err != nil {
		return planned{}, refused("", "%s", err.Error())
	}
	p := planned{target: t}
	exists, err := r.exists(c.Name)
	if err != nil {
		return p, err
	}
	if c.Action == skillpath.ActionCreate {
		if exists {
			return p, refused(t.Rel, "skill %q exists already; use update to rewrite its SKILL.md or patch to edit it", c.Name)
		}
		if _, err := r.dir.Lstat(c.Name); err == nil {
			return p, refused(c.Name, "the directory exists without a %s; remove it or pick another name", skillpath.FileName)
		}
	} else if !exists {
		return p, refused(t.Rel, "there is no skill %q; skills_list shows the skills, create makes one", c.Name)
	}
	switch c.Action {
	case skillpath.ActionCreate, skillpath.ActionUpdate:
		if _, err := Validate(c.Name, []byte(c.Content)); err != nil {
			return p, refused(t.Rel, "%s", err.Error())
		}
		p.content = c.Content
		if c.Action == skillpath.ActionCreate {
			p.base = "absent" // a SKILL.md made meanwhile is kept
			return p, nil
		}
		return p, fsops.WritePrecheck(ctx, r.ws, fsops.WriteParams{Path: t.Rel})
	case skillpath.ActionPatch:
		if c.FilePath != "" {
			_, err := fsops.PatchPrecheck(ctx, r.ws, r.patchParams(t, c))
			return p, err
		}
		return r.planSkillPatch(p, c)
	case skillpath.ActionWriteFile:
		return p, fsops.WritePrecheck(ctx, r.ws, fsops.WriteParams{Path: t.Rel, Content: c.Content, CreateDirs: true})
	case skillpath.ActionRemoveFile:
		st, err := r.dir.Lstat(t.Rel)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return p, refused(t.Rel, "there is no such file in skill %q", c.Name)
		case err != nil:
			return p, refused(t.Rel, "cannot be inspected: %v", reason(err))
		case !st.Mode().IsRegular():
			return p, refused(t.Rel, "is not a regular file; remove_file removes one file")
		}
	}
	return p, nil
}

func (r *Root) patchParams(t skillpath.Target, c Change) fsops.PatchParams {
	return fsops.PatchParams{Path: t.Rel, OldString: c.OldString, NewString: c.NewString, ReplaceAll: c.ReplaceAll}
}

// planSkillPatch edits SKILL.md in memory (it is bounded) so that the
// result's front matter is checked before approval as create's is.
func (r *Root) planSkillPatch(p planned, c Change) (planned, error) {
	rel := p.target.Rel
	if c.OldString == "" {
		return p, refused(rel, "old_string is empty; give the exact text to replace")
	}
	if c.OldString == c.NewString {
		return p, refused(rel, "old_string and new_string are the same; the patch would change nothing")
	}
	data, err := r.readSkillFile(c.Name)
	if err != nil {
		return p, err
	}
	text := string(data)
	n := strings.Count(text, c.OldString)
	starts := textedit.CountStarts(text, c.OldString)
	switch {
	case n == 0:
		return p, &fsops.RefusedError{Path: rel, Kind: fsops.ErrNoMatch, Reason: "old_string does not occur in the file; skill_view shows its current text"}
	case starts > 1 && !c.ReplaceAll:
		overlap := ""
		if starts > n {
			overlap = " (some overlapping)"
		}
		return p, &fsops.RefusedError{Path: rel, Kind: fsops.ErrAmbiguousMatch, Reason: fmt.Sprintf("old_string occurs %d times%s; give more surrounding text to make it unique, or set replace_all", starts, overlap)}
	}
	sum := sha256.Sum256(data)
	p.base = hex.EncodeToString(sum[:])
	if c.ReplaceAll {
		text = strings.ReplaceAll(text, c.OldString, c.NewString)
	} else {
		text = strings.Replace(text, c.OldString, c.NewString, 1)
		n = 1
	}
	if _, err := Validate(c.Name, []byte(text)); err != nil {
		return p, refused(rel, "after the patch %s", err.Error())
	}
	p.content, p.matches = text, n
	return p, nil
}

// testHookBeforeWrite runs, when a test sets it, between Apply's plan and
// its write.
var testHookBeforeWrite func()

// Apply checks c again (the files may have changed since the precheck)
// and makes the change: every write is staged and swapped in atomically
// by fsops; a removal goes through the root's descriptor.
func (r *Root) Apply(ctx context.Context, c Change) (Outcome, error) {
	p, err := r.plan(ctx, c)
	if err != nil {
		return Outcome{}, err
	}
	out := Outcome{Action: c.Action, Skill: c.Name, Path: p.target.Rel}
	if testHookBeforeWrite != nil {
		testHookBeforeWrite()
	}
	write := func(content string) error {
		w, err := fsops.WriteFile(ctx, r.ws, fsops.WriteParams{Path: p.target.Rel, Content: content, CreateDirs: true, ExpectedSHA256: p.base})
		out.Created, out.Bytes = w.Created, w.BytesWritten
		return err
	}
	switch c.Action {
	case skillpath.ActionCreate, skillpath.ActionUpdate:
		err = write(p.content)
	case skillpath.ActionWriteFile:
		err = write(c.Content)
	case skillpath.ActionPatch:
		if c.FilePath == "" {
			err = write(p.content)
			out.Replacements = p.matches
			break
		}
		var res fsops.PatchResult
		res, err = fsops.Patch(ctx, r.ws, r.patchParams(p.target, c))
		out.Replacements, out.Bytes, out.Diff = res.Replacements, res.BytesAfter, res.Diff
	case skillpath.ActionRemoveFile:
		err = r.dir.Remove(p.target.Rel)
	case skillpath.ActionDelete:
		err = r.dir.RemoveAll(c.Name)
	}
	return out, err
}
