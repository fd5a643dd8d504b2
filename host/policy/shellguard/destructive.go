package shellguard

import (
	"path"
	"path/filepath"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// destructiveNames are the programs destructive() knows payloads of.
var destructiveNames = map[string]bool{
	"rm": true, "chmod": true, "chown": true, "chgrp": true, "mv": true, "dd": true, "shred": true,
	"tee": true, "cp": true, "truncate": true, "find": true, "kill": true,
	"shutdown": true, "reboot": true, "halt": true, "poweroff": true, "init": true, "telinit": true, "systemctl": true,
	"mkswap": true, "mke2fs": true, "wipefs": true, "mkdosfs": true, "mkntfs": true, "fdisk": true, "sfdisk": true, "parted": true,
}

// destructive blocks the known destructive payloads: recursive removal or
// permission change of /, ~, the workspace root or a system directory;
// file systems made or wiped; writes onto block devices; killing every
// process; shutting the machine down.
func (g *guard) destructive(name string, args []string, depth int, f *finding) {
	switch {
	case strings.HasPrefix(name, "mkfs"):
		f.block(name + " makes a file system")
		return
	case !destructiveNames[name]:
		return
	}
	switch name {
	case "rm":
		if hasOpt(args, "--no-preserve-root") {
			f.block("rm --no-preserve-root")
		}
		if !hasFlag(args, "-r", "-R", "--recursive") {
			return
		}
		for _, t := range operands(args) {
			if what, ok := g.rootish(t); ok {
				f.block("rm -r of " + what)
			}
		}
	case "chmod", "chown", "chgrp":
		if !hasFlag(args, "-R", "--recursive") {
			return
		}
		for _, t := range operands(args) {
			if what, ok := g.rootish(t); ok {
				f.block(name + " -R of " + what)
			}
		}
	case "mv":
		ops := operands(args)
		for i, t := range ops {
			if what, ok := g.rootish(t); ok && i < len(ops)-1 {
				f.block("mv of " + what)
			}
		}
	case "dd":
		for _, a := range args {
			if v, ok := strings.CutPrefix(a, "of="); ok && isBlockDevice(v) {
				f.block("dd onto the block device " + v)
			}
		}
	case "shred", "tee", "cp", "truncate", "wipefs", "fdisk", "sfdisk", "parted", "mkswap", "mke2fs", "mkdosfs", "mkntfs":
		for _, a := range args {
			if isBlockDevice(a) {
				f.block(name + " onto the block device " + a)
			}
		}
		if name == "wipefs" || name == "mkswap" || name == "mke2fs" || name == "mkdosfs" || name == "mkntfs" {
			f.block(name + " wipes or makes a file system")
		}
	case "find":
		if !hasFind(args, "-delete") || findFilters(args) {
			return
		}
		for _, t := range findStarts(args) {
			if what, ok := g.rootish(t); ok {
				f.block("find -delete under " + what)
			}
		}
	case "kill":
		if killsEverything(args) {
			f.block("kill -1 signals every process")
		}
	case "shutdown", "reboot", "halt", "poweroff":
		f.block(name + " stops the machine")
	case "init", "telinit":
		if len(args) > 0 && (args[0] == "0" || args[0] == "6") {
			f.block(name + " " + args[0] + " stops the machine")
		}
	case "systemctl":
		for _, a := range operands(args) {
			switch a {
			case "poweroff", "reboot", "halt", "kexec", "soft-reboot":
				f.block("systemctl " + a + " stops the machine")
			}
		}
	}
}

// hasFlag is hasOpt over all arguments up to "--", wherever the option
// stands (GNU tools take options after operands).
func hasFlag(args []string, names ...string) bool {
	for _, a := range args {
		if a == "--" {
			return false
		}
		if !strings.HasPrefix(a, "-") || a == "-" {
			continue
		}
		for _, n := range names {
			if optMatches(a, n) {
				return true
			}
		}
	}
	return false
}

// operands are the arguments that are not options (everything after "--"
// counts).
func operands(args []string) []string {
	var out []string
	for i, a := range args {
		if a == "--" {
			return append(out, args[i+1:]...)
		}
		if !strings.HasPrefix(a, "-") || a == "-" {
			out = append(out, a)
		}
	}
	return out
}

// killsEverything reports kill with the process id -1.
func killsEverything(args []string) bool {
	sigSeen := false
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			sigSeen = true
		case a == "-1" && sigSeen:
			return true
		case !sigSeen && (a == "-s" || a == "-n"):
			i++
			sigSeen = true
		case !sigSeen && strings.HasPrefix(a, "-"):
			sigSeen = true
		default:
			sigSeen = true
		}
	}
	return false
}

// blockDevicePrefixes are the device nodes of disks and partitions.
var blockDevicePrefixes = []string{"/dev/sd", "/dev/hd", "/dev/vd", "/dev/xvd", "/dev/nvme", "/dev/mmcblk", "/dev/disk",
	"/dev/dm-", "/dev/md", "/dev/mapper/", "/dev/loop", "/dev/sr", "/dev/root", "/dev/mem", "/dev/kmem", "/dev/port"}

func isBlockDevice(p string) bool {
	if !strings.HasPrefix(p, "/dev/") {
		return false
	}
	p = path.Clean(p)
	for _, pre := range blockDevicePrefixes {
		if strings.HasPrefix(p, pre) {
			return true
		}
	}
	return false
}

// systemDirs are top-level directories whose removal breaks the machine.
var systemDirs = map[string]bool{
	"/bin": true, "/boot": true, "/dev": true, "/etc": true, "/home": true, "/lib": true, "/lib32": true, "/lib64": true,
	"/opt": true, "/proc": true, "/root": true, "/sbin": true, "/srv": true, "/sys": true, "/usr": true, "/var": true,
	"/Users": true, "/System": true, "/Library": true, "/Applications": true,
}

// rootish reports whether a removal target (as written, expansions
// unexpanded) is /, a system directory, the home directory, the workspace
// root, or an ancestor of the latter two; what names it for the reason.
func (g *guard) rootish(t string) (what string, ok bool) {
	t = strings.TrimSpace(t)
	if t == "" {
		return "", false
	}
	// Trailing /, /. and /* still mean the directory itself (or all of it).
	for {
		n := len(t)
		t = strings.TrimSuffix(t, "/*")
		t = strings.TrimSuffix(t, "/.")
		if len(t) > 1 {
			t = strings.TrimSuffix(t, "/")
		}
		if len(t) == n {
			break
		}
	}
	switch t {
	case "", "/", "/*":
		return "/", true
	case "~", "$HOME", "~/", "${HOME}":
		return "the home directory", true
	}
	for _, pre := range []string{"~/", "$HOME/"} {
		if rest, ok := strings.CutPrefix(t, pre); ok {
			if g.home == "" {
				return "", false
			}
			t = filepath.Join(g.home, rest)
		}
	}
	if strings.ContainsAny(t, "$~`") {
		return "", false
	}
	abs := t
	if !filepath.IsAbs(abs) {
		if g.cwd == "" {
			return "", false
		}
		if t == "*" {
			t = "."
		}
		abs = filepath.Join(g.cwd, t)
	}
	abs = filepath.Clean(abs)
	switch {
	case abs == "/":
		return "/", true
	case systemDirs[abs]:
		return abs, true
	case abs == g.root:
		return "the workspace root", true
	case abs == g.home:
		return "the home directory", true
	case g.root != "" && isAncestorOrSelf(abs, g.root):
		return abs + ", which holds the workspace", true
	case g.home != "" && isAncestorOrSelf(abs, g.home):
		return abs + ", which holds the home directory", true
	}
	return "", false
}

func isAncestorOrSelf(dir, p string) bool {
	if dir == p || dir == "/" {
		return true
	}
	return strings.HasPrefix(p, dir+"/")
}

func baseName(a string) string {
	if i := strings.LastIndexByte(a, '/'); i >= 0 {
		return a[i+1:]
	}
	return a
}

// scanDestructive walks a statement for destructive payloads the direct
// reading does not reach: inside substitutions, groups, control flow and
// function bodies. Only blocks are taken from it.
func (g *guard) scanDestructive(s *syntax.Stmt, depth int, f *finding) {
	syntax.Walk(s, func(n syntax.Node) bool {
		var tmp finding
		switch n := n.(type) {
		case *syntax.CallExpr:
			g.call(n, depth, &tmp)
		case *syntax.Redirect:
			g.redirect(n, &tmp)
		case *syntax.FuncDecl:
			if n.Name != nil && forkBomb(n) {
				tmp.block("fork bomb: function " + n.Name.Value + " calls itself in a pipe or in the background")
			}
		}
		for _, r := range tmp.blocks {
			f.block(r)
		}
		return true
	})
}

// forkBomb reports a function that calls itself inside a pipeline or a
// background statement.
func forkBomb(fd *syntax.FuncDecl) bool {
	name := fd.Name.Value
	selfCall, spawns := false, false
	syntax.Walk(fd.Body, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.CallExpr:
			if len(n.Args) > 0 && n.Args[0].Lit() == name {
				selfCall = true
			}
		case *syntax.Stmt:
			if n.Background {
				spawns = true
			}
		case *syntax.BinaryCmd:
			if n.Op == syntax.Pipe || n.Op == syntax.PipeAll {
				spawns = true
			}
		}
		return true
	})
	return selfCall && spawns
}
