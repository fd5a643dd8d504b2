package skills

import (
	"fmt"
	"os"
	"slices"
	"strings"

	"demiurge.dev/shared/skillpath"
)

// Listing bounds.
const (
	DefaultListLimit = 100
	MaxListLimit     = 500
	// listBudget bounds the descriptions' characters in one answer.
	listBudget = 48 << 10
	// maxProblems bounds the broken skills named in one answer; their
	// count is always exact.
	maxProblems = 20
)

// Item is one skill of a listing.
type Item struct {
	Name        string `json:"name"`
	Description string `json:"description"`
}

// Problem is a directory of the root that is not a usable skill.
type Problem struct {
	Name   string `json:"name"`
	Reason string `json:"reason"`
}

// Listing is one page of skills, in name order, with exact totals.
type Listing struct {
	Skills []Item `json:"skills"`
	// Total counts every usable skill; Offset is this page's first.
	Total  int `json:"total"`
	Offset int `json:"offset"`
	// NextOffset continues after this page; 0 when it is the last.
	NextOffset int  `json:"next_offset,omitempty"`
	Truncated  bool `json:"truncated"`
	// StoppedBy is "limit" or "char_budget" when Truncated.
	StoppedBy string `json:"stopped_by,omitempty"`
	// Problems are directories left out (no or broken SKILL.md), at most
	// maxProblems of them; ProblemsTotal counts all.
	Problems      []Problem `json:"problems,omitempty"`
	ProblemsTotal int       `json:"problems_total,omitempty"`
}

// List reads every skill's front matter and returns the page starting at
// offset (0-based) of at most limit skills.
func (r *Root) List(offset, limit int) (Listing, error) {
	if limit <= 0 {
		limit = DefaultListLimit
	}
	if offset < 0 {
		return Listing{}, fmt.Errorf("offset %d is negative", offset)
	}
	limit = min(limit, MaxListLimit)
	d, err := r.dir.Open(".")
	if err != nil {
		return Listing{}, fmt.Errorf("the skills root cannot be listed: %v", reason(err))
	}
	entries, err := d.ReadDir(-1)
	d.Close()
	if err != nil {
		return Listing{}, fmt.Errorf("the skills root cannot be listed: %v", reason(err))
	}
	slices.SortFunc(entries, func(a, b os.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	out := Listing{Offset: offset, Skills: []Item{}}
	used := 0
	for _, e := range entries {
		name := e.Name()
		if strings.HasPrefix(name, ".") || e.Type().IsRegular() {
			continue // hidden entries and loose files are not skills
		}
		item, problem := r.item(name)
		if !e.IsDir() {
			item, problem = Item{}, "is not a directory (a symlink or a special file); a skill is a directory"
		}
		if problem != "" {
			out.ProblemsTotal++
			if len(out.Problems) < maxProblems {
				out.Problems = append(out.Problems, Problem{Name: clip(name), Reason: problem})
			}
			continue
		}
		index := out.Total
		out.Total++
		if index < offset || out.Truncated {
			continue
		}
		if len(out.Skills) == limit {
			out.Truncated, out.StoppedBy, out.NextOffset = true, "limit", index
			continue
		}
		if used+len(item.Description) > listBudget && len(out.Skills) > 0 {
			out.Truncated, out.StoppedBy, out.NextOffset = true, "char_budget", index
			continue
		}
		used += len(item.Description) + len(item.Name)
		out.Skills = append(out.Skills, item)
	}
	return out, nil
}

// item reads one skill directory's front matter, or says why it is not
// a usable skill.
func (r *Root) item(name string) (Item, string) {
	if err := skillpath.ValidName(name); err != nil {
		return Item{}, err.Error()
	}
	data, err := r.readSkillFile(name)
	if err != nil {
		return Item{}, err.Error()
	}
	fm, err := Validate(name, data)
	if err != nil {
		return Item{}, err.Error()
	}
	return Item{Name: fm.Name, Description: fm.Description}, ""
}
