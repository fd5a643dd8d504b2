package approval

import (
	"fmt"
	"strings"
)

// maxCoverageRunes bounds the words of one allow's coverage on screen.
const maxCoverageRunes = 160

// coverage describes the subjects a session allow was granted for, as
// /approvals shows them: the allow covers calls with these same subjects.
func coverage(req Request) string {
	var parts []string
	for _, s := range req.Subjects {
		switch {
		case s.Kind == "path":
			where := s.Rel
			if where == "" {
				where = s.Resolved
			}
			parts = append(parts, fmt.Sprintf("%s %s", s.Access, Inert(where)))
		case s.Command != nil:
			mode := "foreground"
			if s.Command.Background {
				mode = "background"
			}
			cwd := s.Rel
			if cwd == "" {
				cwd = s.Resolved
			}
			if cwd == "" {
				cwd = "."
			}
			parts = append(parts, fmt.Sprintf("command %q in %s, %s", Inert(s.Value), Inert(cwd), mode))
		default:
			parts = append(parts, fmt.Sprintf("%s %s", s.Kind, Inert(s.Value)))
		}
	}
	if len(parts) == 0 {
		return "any call of this tool with the same arguments"
	}
	return truncateRunes(strings.Join(parts, "; "), maxCoverageRunes)
}
