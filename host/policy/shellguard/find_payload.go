package shellguard

import (
	"regexp"
	"strings"
)

// checkFindPayload blocks find that deletes everything under a rootish
// start (find / -delete, find ~ -exec rm -rf {} +): an action that removes
// files, and an expression that does not narrow what it removes.
func checkFindPayload(g *guard, name string, args []string, _ int, f *finding) {
	starts, expr := splitFind(args)
	if !findRemoves(expr) || findNarrows(expr) {
		return
	}
	if len(starts) == 0 {
		starts = []string{"."}
	}
	g.blockRootish("find removes everything under ", starts, f)
}

// splitFind splits find's arguments into start paths and the expression,
// after the -H/-L/-P/-D/-O options.
func splitFind(args []string) (starts, expr []string) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "-H" || a == "-L" || a == "-P" || strings.HasPrefix(a, "-O") || a == "--":
		case a == "-D":
			i++
		case strings.HasPrefix(a, "-") || a == "(" || a == "!" || a == ")" || a == ",":
			return starts, args[i:]
		default:
			starts = append(starts, a)
		}
	}
	return starts, nil
}

// removerWord is a program that deletes what find hands it.
var removerWord = regexp.MustCompile(`(^|[\s/;&|'"])(rm|unlink|shred|rmdir|truncate)(\s|$|['"])`)

// findRemoves reports -delete, or -exec/-execdir running a remover.
func findRemoves(expr []string) bool {
	for i := 0; i < len(expr); i++ {
		switch expr[i] {
		case "-delete":
			return true
		case "-exec", "-execdir": // -ok asks before each file
			for j := i + 1; j < len(expr) && expr[j] != ";" && expr[j] != "+"; j++ {
				if removerWord.MatchString(expr[j]) {
					return true
				}
			}
		}
	}
	return false
}

// findNeutral are primaries that select every file; the number says how
// many values follow.
var findNeutral = map[string]int{
	"-delete": 0, "-depth": 0, "-d": 0, "-xdev": 0, "-mount": 0, "-ignore_readdir_race": 0, "-noignore_readdir_race": 0,
	"-noleaf": 0, "-print": 0, "-print0": 0, "-true": 0, "-follow": 0, "-daystart": 0, "-warn": 0, "-nowarn": 0, "-ls": 0,
	"-mindepth": 1, "-maxdepth": 1, "-type": 1, "-xtype": 1, "-regextype": 1, "-a": 0, "-and": 0,
}

// findNarrowing are the tests, besides names and paths, that pick out
// particular files.
var findNarrowing = map[string]bool{"-empty": true, "-inum": true, "-samefile": true, "-links": true, "-lname": true, "-ilname": true}

// findNarrows reports whether every alternative of find's expression
// (split at -o and ,) holds a test that narrows what it selects. A negated
// test does not count (! -name x selects nearly everything), nor does a
// name pattern that every name matches (-name '*').
func findNarrows(expr []string) bool {
	alternative := false // the current alternative has a narrowing test
	for i := 0; i < len(expr); i++ {
		a := expr[i]
		switch {
		case a == "-o" || a == "-or" || a == ",":
			if !alternative {
				return false
			}
			alternative = false
		case a == "!" || a == "-not":
			// Skip the negated test (and its value, or its group).
			i = skipFindTerm(expr, i+1)
		case a == "(":
			end := matchingParen(expr, i)
			if findNarrows(expr[i+1 : end]) {
				alternative = true
			}
			i = end
		case a == "-exec" || a == "-execdir" || a == "-ok" || a == "-okdir":
			for i+1 < len(expr) && expr[i+1] != ";" && expr[i+1] != "+" {
				i++
			}
			i++
		case a == "-name" || a == "-iname" || a == "-path" || a == "-ipath" || a == "-wholename" || a == "-iwholename":
			if i+1 < len(expr) {
				i++
				if !broadGlob(expr[i]) && !matchesEveryPath(expr[i]) {
					alternative = true
				}
			}
		case a == "-regex" || a == "-iregex":
			if i+1 < len(expr) {
				i++
				if !matchesEverything(expr[i], a == "-iregex") {
					alternative = true
				}
			}
		case findNarrowing[a]:
			alternative = true
		default:
			if n, ok := findNeutral[a]; ok {
				i += n
				continue
			}
			// Any other test (-mtime, -size, -user, -perm, -newer, ...)
			// still selects a swath of the tree: not narrowing. Its
			// value is skipped.
			if strings.HasPrefix(a, "-") && i+1 < len(expr) && !strings.HasPrefix(expr[i+1], "-") && expr[i+1] != "(" && expr[i+1] != "!" && expr[i+1] != ")" {
				i++
			}
		}
	}
	return alternative
}

// matchesEveryPath reports a -path pattern every path matches (*, */*).
func matchesEveryPath(p string) bool { return strings.Trim(p, "*/") == "" }

// skipFindTerm returns the index of the last word of the term at i.
func skipFindTerm(expr []string, i int) int {
	if i >= len(expr) {
		return i
	}
	if expr[i] == "(" {
		return matchingParen(expr, i)
	}
	if n, ok := findNeutral[expr[i]]; ok {
		return i + n
	}
	switch expr[i] {
	case "-exec", "-execdir", "-ok", "-okdir":
		for i < len(expr) && expr[i] != ";" && expr[i] != "+" {
			i++
		}
		return i
	case "-empty", "-readable", "-writable", "-executable", "-nouser", "-nogroup", "-false", "-prune", "-quit":
		return i
	}
	return i + 1 // a test with one value (-name x, -newer f, -size +1M)
}

func matchingParen(expr []string, i int) int {
	depth := 0
	for j := i; j < len(expr); j++ {
		switch expr[j] {
		case "(":
			depth++
		case ")":
			if depth--; depth == 0 {
				return j
			}
		}
	}
	return len(expr) - 1
}
