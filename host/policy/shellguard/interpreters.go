package shellguard

import (
	"regexp"
	"strings"
)

// The guard cannot read a program in another language; it reads the
// shell commands such a program hands to a shell or exec in a string
// literal (os.system("rm -rf /"), subprocess.run(["rm", "-rf", "/"]),
// `rm -rf /`), the trees it removes by a literal path (shutil.rmtree("/"),
// FileUtils.rm_rf("/"), rmSync("/", {recursive: true})), and the fork bombs
// written in it. Everything else such code does only needs approval.

var interpreterNames = []string{"python", "python2", "python3", "pypy", "pypy3", "perl", "ruby", "node", "nodejs", "php", "deno", "bun"}

// interpreterCodeOpts are the options that give code inline.
var interpreterCodeOpts = map[string]bool{"-c": true, "-e": true, "-E": true, "--eval": true, "-p": true, "--print": true, "-r": true}

var (
	// shellCall: a call that runs its first string argument as a command.
	shellCall = regexp.MustCompile(`(?:system|popen|call|run|check_output|check_call|getoutput|getstatusoutput|Popen|exec|execSync|spawn|spawnSync|execFileSync|shell_exec|passthru|proc_open|%x)\s*\(?\s*(?:\[([^\]]*)\]|"((?:[^"\\]|\\.)*)"|'((?:[^'\\]|\\.)*)')`)
	// backticks: `cmd` in perl, ruby and php.
	backticks = regexp.MustCompile("`([^`]*)`")
	// treeRemoval: a call that removes a tree, with its literal path.
	treeRemoval = regexp.MustCompile(`(?:rmtree|rm_rf|rm_r|remove_dir_all|rmSync|rmdirSync|removedirs|rimraf)\s*\(\s*(?:"((?:[^"\\]|\\.)*)"|'((?:[^'\\]|\\.)*)')`)
	// forkBombCode: fork in a loop with no exit.
	forkBombCode = regexp.MustCompile(`fork\s*(?:\(\s*\))?\s*while\s*\(?\s*(?:fork|1|true)\b|fork\s*(?:\(\s*\))?\s*until\s*\(?\s*0\b|fork\s*\(\s*\)\s*for\s+\w+\s+in\s+(?:iter\s*\(|(?:itertools\.)?(?:count|repeat|cycle)\s*\()|while\s*\(?\s*(?:True|true|1)\s*\)?\s*[:{]?\s*(?:os\.|Process\.)?fork\b|loop\s*(?:do|\{)\s*(?:Process\.)?fork|for\s*\(\s*;\s*;\s*\)\s*\{?\s*fork\b`)
	quotedString = regexp.MustCompile(`"((?:[^"\\]|\\.)*)"|'((?:[^'\\]|\\.)*)'`)
)

// checkInterpreter reviews the inline code of an interpreter for known
// payloads.
func checkInterpreter(g *guard, name string, args []string, depth int, f *finding) {
	if len(operands(args)) == 0 || (len(args) > 0 && args[len(args)-1] == "-") {
		g.consumer.interp = name // reads its program from standard input
	}
	for i, a := range args {
		code := ""
		switch {
		case interpreterCodeOpts[a] && i+1 < len(args):
			code = args[i+1]
		case strings.HasPrefix(a, "--eval="):
			code = strings.TrimPrefix(a, "--eval=")
		case len(a) > 2 && a[0] == '-' && a[1] != '-' && strings.ContainsAny(a[1:], "ceE") && i+1 < len(args):
			code = args[i+1] // a cluster such as perl -we, python -Ic
		default:
			continue
		}
		g.interpreterCode(name, code, depth, f)
	}
}

// maxInterpreterCode bounds the inline code read for payloads; longer code
// is not read (it needs approval like any interpreter code).
const maxInterpreterCode = 32 << 10

func (g *guard) interpreterCode(name, code string, depth int, f *finding) {
	if len(code) > maxInterpreterCode {
		f.prompt(High, name+" code is longer than the guard reads for known payloads")
		return
	}
	if forkBombCode.MatchString(code) {
		f.block("fork bomb: " + name + " code forks in an endless loop")
	}
	for _, m := range shellCall.FindAllStringSubmatch(code, -1) {
		switch {
		case m[1] != "":
			var argv []string
			for _, q := range quotedString.FindAllStringSubmatch(m[1], -1) {
				argv = append(argv, q[1]+q[2])
			}
			if len(argv) > 0 {
				g.blocksOnly(f, func(tmp *finding) { g.judge(argv, depth+1, tmp) })
			}
		default:
			src := m[2] + m[3]
			g.blocksOnly(f, func(tmp *finding) { g.reviewInner(src, depth, tmp) })
		}
	}
	for _, m := range backticks.FindAllStringSubmatch(code, -1) {
		g.blocksOnly(f, func(tmp *finding) { g.reviewInner(m[1], depth, tmp) })
	}
	for _, m := range treeRemoval.FindAllStringSubmatch(code, -1) {
		if what, ok := g.rootish(m[1] + m[2]); ok {
			f.block(name + " code removes the tree of " + what)
		}
	}
}

// blocksOnly runs judge into a scratch finding and keeps only its blocks.
func (g *guard) blocksOnly(f *finding, judge func(*finding)) {
	var tmp finding
	judge(&tmp)
	for _, r := range tmp.blocks {
		f.block(r)
	}
}
