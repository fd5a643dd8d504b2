package shellguard

import (
	"strconv"
	"strings"
)

// findExec are the primaries that run a program; findWrites write files.
var (
	findExec   = []string{"-exec", "-execdir", "-ok", "-okdir"}
	findWrites = []string{"-fprint", "-fprint0", "-fprintf", "-fls"}
)

// findPrimaries are GNU find's options, tests and read-only actions, with
// how many words each takes; anything else in the expression (-delete,
// -exec and kin, -fprint and kin, a primary the guard does not know)
// needs approval. The words -anewer, -cnewer, -newer, -samefile and
// -newerXY take are files whose times are read.
var findPrimaries = map[string]int{
	"-d": 0, "-depth": 0, "-maxdepth": 1, "-mindepth": 1, "-mount": 0, "-xdev": 0, "-noleaf": 0,
	"-ignore_readdir_race": 0, "-noignore_readdir_race": 0, "-regextype": 1, "-warn": 0, "-nowarn": 0, "-follow": 0,
	"-daystart": 0, "-help": 0, "--help": 0, "-version": 0, "--version": 0,
	"-amin": 1, "-anewer": 1, "-atime": 1, "-cmin": 1, "-cnewer": 1, "-ctime": 1, "-empty": 0, "-executable": 0,
	"-false": 0, "-fstype": 1, "-gid": 1, "-group": 1, "-ilname": 1, "-iname": 1, "-inum": 1, "-ipath": 1,
	"-iregex": 1, "-iwholename": 1, "-links": 1, "-lname": 1, "-mmin": 1, "-mtime": 1, "-name": 1, "-newer": 1,
	"-nogroup": 0, "-nouser": 0, "-path": 1, "-perm": 1, "-readable": 0, "-regex": 1, "-samefile": 1, "-size": 1,
	"-true": 0, "-type": 1, "-uid": 1, "-used": 1, "-user": 1, "-wholename": 1, "-writable": 0, "-xtype": 1,
	"-context": 1, "-ls": 0, "-print": 0, "-print0": 0, "-printf": 1, "-prune": 0, "-quit": 0,
	"(": 0, ")": 0, "!": 0, "-not": 0, "-a": 0, "-and": 0, "-o": 0, "-or": 0, ",": 0,
}

// findFileValues are the primaries whose value is a file.
var findFileValues = map[string]bool{"-anewer": true, "-cnewer": true, "-newer": true, "-samefile": true}

// checkFind: find reads, unless its expression runs, deletes or writes.
// The programs -exec would run are judged too (blocks come through).
func checkFind(g *guard, name string, args []string, depth int, f *finding) {
	starts, expr := findSplit(args)
	for _, p := range starts {
		g.readPath(p, f)
	}
	if findFollows(args, expr) {
		// -L and -follow walk into whatever the links met lead to.
		if len(starts) == 0 {
			starts = []string{"."}
		}
		for _, p := range starts {
			g.listTreeFollowing(p, f)
		}
	}
	for i := expr; i < len(args); i++ {
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
			if a == "-fprintf" {
				i++
			}
			i++
		case a == "-files0-from":
			f.prompt(Medium, "find -files0-from reads the start paths from a file, which the guard cannot see")
			if i+1 < len(args) {
				g.readPath(args[i+1], f)
			}
			i++
		case isFindNewerXY(a):
			if i+1 < len(args) && a[len(a)-1] != 't' {
				g.readPath(args[i+1], f)
			}
			i++
		default:
			n, ok := findPrimaries[a]
			if !ok {
				f.prompt(High, "find "+strconv.Quote(a)+" is not a primary known to be read-only")
				continue
			}
			if findFileValues[a] && i+1 < len(args) {
				g.readPath(args[i+1], f)
			}
			i += n
		}
	}
}

// findFollows reports find -L before the start paths or -follow in the
// expression: symbolic links met in the walk are followed.
func findFollows(args []string, expr int) bool {
	for _, a := range args[:expr] {
		if a == "-L" {
			return true
		}
	}
	return containsString(args[expr:], "-follow")
}

// isFindNewerXY matches -newerXY (X, Y among a B c m; Y may also be t,
// a date rather than a file).
func isFindNewerXY(a string) bool {
	if len(a) != 8 || !strings.HasPrefix(a, "-newer") {
		return false
	}
	return strings.IndexByte("aBcm", a[6]) >= 0 && strings.IndexByte("aBcmt", a[7]) >= 0
}

// findSplit reads find's command line as find does: the -H/-L/-P/-D/-O
// options, then the start paths, then the expression from index expr.
func findSplit(args []string) (starts []string, expr int) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "-H" || a == "-L" || a == "-P" || strings.HasPrefix(a, "-O"):
		case a == "-D":
			i++
		case a == "--":
		case strings.HasPrefix(a, "-") || a == "(" || a == "!" || a == ")" || a == ",":
			return starts, i
		default:
			starts = append(starts, a)
		}
	}
	return starts, len(args)
}
