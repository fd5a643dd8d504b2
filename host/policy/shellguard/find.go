package shellguard

import "strings"

// findExec are the primaries that run a program; findWrites write files.
var (
	findExec   = []string{"-exec", "-execdir", "-ok", "-okdir"}
	findWrites = []string{"-fprint", "-fprint0", "-fprintf", "-fls"}
)

// checkFind: find reads, unless its expression runs, deletes or writes.
// The programs -exec would run are judged too (blocks come through).
func checkFind(g *guard, name string, args []string, depth int, f *finding) {
	for _, p := range findStarts(args) {
		g.readPath(p, f)
	}
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case containsString(findExec, a):
			f.prompt(High, "find "+a+" runs a program")
			end := i + 1
			for end < len(args) && args[end] != ";" && args[end] != "+" {
				end++
			}
			if end > i+1 {
				var inner finding
				g.judge(args[i+1:end], depth+1, &inner)
				f.merge(inner)
			}
			i = end
		case a == "-delete":
			f.prompt(High, "find -delete removes files")
		case containsString(findWrites, a):
			f.prompt(High, "find "+a+" writes a file")
		case a == "-files0-from":
			f.prompt(Medium, "find -files0-from reads a file named in an option")
			if i+1 < len(args) {
				g.readPath(args[i+1], f)
			}
		}
	}
}

// findStarts are the start paths: the operands before the expression,
// after the -H/-L/-P/-D/-O options.
func findStarts(args []string) []string {
	var out []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "-H" || a == "-L" || a == "-P" || strings.HasPrefix(a, "-O"):
		case a == "-D":
			i++
		case a == "--":
		case strings.HasPrefix(a, "-") || a == "(" || a == "!" || a == ")" || a == ",":
			return out
		default:
			out = append(out, a)
		}
	}
	return out
}

// hasFind reports a primary anywhere in find's arguments.
func hasFind(args []string, primary string) bool {
	return containsString(args, primary)
}

// findFilters reports whether find's expression selects files (anything
// beyond -delete and depth or traversal options), so that -delete does
// not remove everything under its start paths.
func findFilters(args []string) bool {
	for _, a := range args[len(findStarts(args)):] {
		switch a {
		case "-delete", "-depth", "-xdev", "-mount", "-H", "-L", "-P", "-ignore_readdir_race", "-noleaf", "-print", "-print0":
		case "-mindepth", "-maxdepth":
		default:
			if strings.HasPrefix(a, "-") {
				return true
			}
		}
	}
	return false
}
