package skills

import (
	"context"

	"demiurge.dev/plugins/coding/fsops"
	"demiurge.dev/shared/skillpath"
)

// ViewParams are skill_view's arguments.
type ViewParams struct {
	Name     string `json:"name" jsonschema_description:"The skill to load, as skills_list names it."`
	FilePath string `json:"file_path,omitempty" jsonschema_description:"A file the skill links to, under references/, templates/, scripts/ or assets/ (e.g. references/api.md); leave it out for SKILL.md."`
	Offset   int    `json:"offset,omitempty" jsonschema:"minimum=-2147483647,maximum=2147483647" jsonschema_description:"First line to return, 1-based (default 1); -N returns the last N lines."`
	Limit    int    `json:"limit,omitempty" jsonschema:"minimum=0,maximum=10000" jsonschema_description:"Maximum number of lines (default 2000)."`
}

// View reads SKILL.md or a support file of a skill with read_file's
// bounds (a line window under a byte and a character budget).
func (r *Root) View(ctx context.Context, p ViewParams) (fsops.ReadResult, error) {
	t, err := skillpath.Resolve("", p.Name, p.FilePath)
	if err != nil {
		return fsops.ReadResult{}, refused("", "%s", err.Error())
	}
	exists, err := r.exists(p.Name)
	if err != nil {
		return fsops.ReadResult{}, err
	}
	if !exists {
		return fsops.ReadResult{}, refused(p.Name, "there is no skill %q; skills_list shows the skills", p.Name)
	}
	return fsops.ReadFile(ctx, r.ws, fsops.ReadParams{Path: t.Rel, Offset: p.Offset, Limit: p.Limit})
}
