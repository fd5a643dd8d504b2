package shellguard

import (
	"path"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// payloadCheck blocks the known destructive payloads of one program.
type payloadCheck func(g *guard, name string, args []string, depth int, f *finding)

// payloads are the programs whose destructive payloads are known; the
// names also tell scanOperands which operands start a command worth
// judging.
var payloads map[string]payloadCheck

// destructiveNames is the set of payloads' program names.
var destructiveNames = map[string]bool{}

func init() {
	payloads = map[string]payloadCheck{
		"rm": checkRm, "chmod": checkRecursiveOwner, "chown": checkRecursiveOwner, "chgrp": checkRecursiveOwner,
		"setfacl": checkRecursiveOwner, "chattr": checkRecursiveOwner,
		"mv": checkMv, "rsync": checkRsync, "dd": checkDd, "cp": checkCp,
		"shred": checkDeviceOperand, "tee": checkDeviceOperand, "truncate": checkDeviceOperand, "blkdiscard": checkDeviceOperand,
		"find": checkFindPayload, "kill": checkKill, "pkill": checkPkill, "killall": checkKillall, "killall5": checkKillall5,
		"shutdown": checkShutdown, "reboot": checkShutdown, "halt": checkShutdown, "poweroff": checkShutdown,
		"init": checkInit, "telinit": checkInit, "systemctl": checkSystemctl, "loginctl": checkSystemctl,
		"fdisk": checkPartitioner, "sfdisk": checkPartitioner, "cfdisk": checkPartitioner, "gdisk": checkPartitioner,
		"sgdisk": checkPartitioner, "parted": checkPartitioner,
		"alias": checkAlias, "cryptsetup": checkCryptsetup, "mdadm": checkMdadm, "hdparm": checkHdparm, "nvme": checkNvme,
	}
	for _, n := range []string{"mkswap", "mke2fs", "wipefs", "mkdosfs", "mkntfs", "mkexfatfs", "mkreiserfs", "mkudffs", "sg_format", "mkfs"} {
		payloads[n] = checkWipeTool
	}
	for _, n := range interpreterNames {
		payloads[n] = checkInterpreter
	}
	for n := range payloads {
		destructiveNames[n] = true
	}
}

// destructive blocks the known destructive payloads: recursive removal or
// permission change of /, ~, the workspace root or a system directory;
// file systems made or wiped; writes onto block devices; killing every
// process; shutting the machine down.
func (g *guard) destructive(name string, args []string, depth int, f *finding) {
	if c, ok := payloads[name]; ok {
		c(g, name, args, depth, f)
		return
	}
	if strings.HasPrefix(name, "mkfs") {
		checkWipeTool(g, name, args, depth, f)
	}
}

var rmOpts = newPayloadOpts("d=dir f=force i=interactive I=interactive r=recursive R=recursive v=verbose",
	"force interactive? one-file-system no-preserve-root preserve-root? recursive dir verbose help version", false)

func checkRm(g *guard, name string, args []string, _ int, f *finding) {
	a := rmOpts.parse(args)
	if a.has("no-preserve-root") {
		f.block("rm --no-preserve-root")
	}
	if !a.has("recursive") {
		return
	}
	g.blockRootish("rm -r of ", a.operands, f)
}

// blockRootish blocks when one of targets is rootish.
func (g *guard) blockRootish(prefix string, targets []string, f *finding) {
	for _, t := range targets {
		if what, ok := g.rootish(t); ok {
			f.block(prefix + what)
		}
	}
}

var recursiveOpts = map[string]payloadOpts{
	"chmod":   newPayloadOpts("c=changes f=silent v=verbose R=recursive", "changes silent quiet verbose no-preserve-root preserve-root reference=reference: recursive help version", false),
	"chown":   newPayloadOpts("c=changes f=silent v=verbose h=no-dereference H L P R=recursive", "changes dereference no-dereference from: silent quiet verbose no-preserve-root preserve-root reference: recursive help version", false),
	"setfacl": newPayloadOpts("m=modify: M=modify-file: x=remove: X=remove-file: b=remove-all k=remove-default n d=default R=recursive L P v", "modify: modify-file: remove: remove-file: remove-all remove-default set: set-file: mask no-mask default restore: test recursive logical physical version help", false),
	"chattr":  newPayloadOpts("R=recursive V f v: p:", "", false),
}

// checkRecursiveOwner: a recursive change of permissions, owner or
// attributes of a rootish directory.
func checkRecursiveOwner(g *guard, name string, args []string, _ int, f *finding) {
	o, ok := recursiveOpts[name]
	if !ok {
		o = recursiveOpts["chown"]
	}
	a := o.parse(args)
	if a.has("recursive") {
		g.blockRootish(name+" -R of ", a.operands, f)
		return
	}
	// Without -R, only / itself: chmod 000 / locks every user out.
	for _, t := range a.operands[min(1, len(a.operands)):] {
		if what, ok := g.rootish(t); ok && what == "/" {
			f.block(name + " of /")
		}
	}
}

var mvOpts = newPayloadOpts("b f=force i n S: t=target: T u v Z",
	"backup? force interactive no-clobber no-copy strip-trailing-slashes suffix: target-directory=target: no-target-directory update? verbose context exchange debug help version", false)

// checkMv: moving a rootish directory away (mv / x, mv ~ /dev/null).
func checkMv(g *guard, name string, args []string, _ int, f *finding) {
	a := mvOpts.parse(args)
	sources := a.operands
	if !a.has("target") && len(sources) > 0 {
		sources = sources[:len(sources)-1]
	}
	g.blockRootish("mv of ", sources, f)
}

// checkRsync: rsync --delete onto a rootish destination empties it.
func checkRsync(g *guard, name string, args []string, _ int, f *finding) {
	deletes := false
	var ops []string
	for _, a := range operands(args) {
		ops = append(ops, a)
	}
	for _, a := range args {
		if a == "--" {
			break
		}
		if strings.HasPrefix(a, "--del") || strings.HasPrefix(a, "--remove-source") {
			deletes = true
		}
	}
	if deletes && len(ops) >= 2 {
		g.blockRootish("rsync --delete onto ", ops[len(ops)-1:], f)
	}
}

func checkDd(g *guard, name string, args []string, _ int, f *finding) {
	for _, a := range args {
		if v, ok := strings.CutPrefix(a, "of="); ok {
			if what, ok := g.destructiveSink(v); ok {
				f.block("dd onto " + what)
			}
		}
	}
}

var cpOpts = newPayloadOpts("a b d f i H l L n P p R r s S: t=target: T u v x Z",
	"archive attributes-only backup? copy-contents dereference force interactive link no-clobber no-dereference no-preserve: parents preserve? recursive reflink? remove-destination sparse: strip-trailing-slashes suffix: symbolic-link target-directory=target: no-target-directory update? verbose one-file-system context? debug help version", false)

// checkCp: cp onto a block device (cp /dev/zero /dev/sda); reading one is
// not a payload.
func checkCp(g *guard, name string, args []string, _ int, f *finding) {
	a := cpOpts.parse(args)
	dests := a.values("target")
	if len(dests) == 0 && len(a.operands) >= 2 {
		dests = a.operands[len(a.operands)-1:]
	}
	for _, d := range dests {
		if what, ok := g.destructiveSink(d); ok {
			f.block("cp onto " + what)
		}
	}
}

// checkDeviceOperand: shred, tee, truncate, blkdiscard of a block device.
func checkDeviceOperand(g *guard, name string, args []string, _ int, f *finding) {
	for _, a := range args {
		v := a
		if i := strings.IndexByte(a, '='); i > 0 && strings.HasPrefix(a, "-") {
			v = a[i+1:]
		}
		if what, ok := g.destructiveSink(v); ok {
			f.block(name + " onto " + what)
		}
	}
}

func checkWipeTool(g *guard, name string, args []string, _ int, f *finding) {
	f.block(name + " wipes or makes a file system")
}

// checkPartitioner: a partition tool given a disk changes its partition
// table unless it only lists it.
func checkPartitioner(g *guard, name string, args []string, _ int, f *finding) {
	device := ""
	for _, a := range args {
		if what, ok := g.destructiveSink(a); ok {
			device = what
		}
	}
	if device == "" {
		return
	}
	for _, a := range args {
		switch a {
		case "-l", "--list", "-p", "--print", "-d", "--dump", "-J", "--json", "-s", "--show-size", "-V", "--verify", "print", "-v", "--version", "-h", "--help", "-i", "--info":
			if name != "parted" || a != "-s" {
				return
			}
		}
	}
	f.block(name + " rewrites the partition table of " + device)
}

// checkAlias reviews the shell code an alias would run.
func checkAlias(g *guard, name string, args []string, depth int, f *finding) {
	for _, a := range args {
		if _, code, ok := strings.Cut(a, "="); ok {
			g.blocksOnly(f, func(tmp *finding) { g.reviewInner(code, depth, tmp) })
		}
	}
}

func checkCryptsetup(g *guard, name string, args []string, _ int, f *finding) {
	for _, a := range operands(args) {
		switch strings.ToLower(a) {
		case "luksformat", "erase", "lukserase", "reencrypt":
			f.block("cryptsetup " + a + " destroys the data on a disk")
			return
		}
	}
}

func checkMdadm(g *guard, name string, args []string, _ int, f *finding) {
	for _, a := range args {
		if strings.HasPrefix(a, "--zero") {
			f.block("mdadm --zero-superblock wipes RAID metadata")
		}
	}
}

func checkHdparm(g *guard, name string, args []string, _ int, f *finding) {
	for _, a := range args {
		for _, p := range []string{"--security-erase", "--trim-sector-ranges", "--write-sector", "--make-bad-sector", "--fwdownload", "--dco-restore"} {
			if strings.HasPrefix(a, p) {
				f.block("hdparm " + p + " destroys the data on a disk")
				return
			}
		}
	}
}

func checkNvme(g *guard, name string, args []string, _ int, f *finding) {
	if ops := operands(args); len(ops) > 0 && (ops[0] == "format" || ops[0] == "sanitize") {
		f.block("nvme " + ops[0] + " erases a disk")
	}
}

func checkShutdown(g *guard, name string, args []string, _ int, f *finding) {
	for _, a := range args {
		if name == "shutdown" && (a == "-c" || a == "--help") {
			return // cancels a pending shutdown
		}
	}
	f.block(name + " stops the machine")
}

func checkInit(g *guard, name string, args []string, _ int, f *finding) {
	if ops := operands(args); len(ops) > 0 {
		switch ops[0] {
		case "0", "6":
			f.block(name + " " + ops[0] + " stops the machine")
		}
	}
}

func checkSystemctl(g *guard, name string, args []string, _ int, f *finding) {
	for _, a := range operands(args) {
		switch a {
		case "poweroff", "reboot", "halt", "kexec", "soft-reboot",
			"poweroff.target", "reboot.target", "halt.target", "kexec.target", "soft-reboot.target":
			f.block(name + " " + a + " stops the machine")
		}
	}
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

// blockDevicePrefixes are the device nodes of disks, partitions and
// memory.
var blockDevicePrefixes = []string{"/dev/sd", "/dev/hd", "/dev/vd", "/dev/xvd", "/dev/nvme", "/dev/mmcblk", "/dev/disk",
	"/dev/dm-", "/dev/md", "/dev/mapper/", "/dev/loop", "/dev/sr", "/dev/root", "/dev/mem", "/dev/kmem", "/dev/port",
	"/dev/block/", "/dev/ubd", "/dev/rbd", "/dev/zd", "/dev/bcache", "/dev/nbd"}

// destructiveSink reports a write target that destroys the machine's
// data or state: a disk device, or /proc/sysrq-trigger.
func (g *guard) destructiveSink(p string) (string, bool) {
	if strings.HasPrefix(p, "/") {
		if !strings.Contains(p, "dev") && !strings.Contains(p, "sysrq") {
			return "", false // fast path: most operands are neither
		}
		return g.sinkAt(p)
	}
	for _, d := range g.everyCwd() {
		if d == "" {
			continue
		}
		if what, ok := g.sinkAt(d + "/" + p); ok {
			return what, true
		}
	}
	return "", false
}

// sinkAt judges an absolute write target.
func (g *guard) sinkAt(p string) (string, bool) {
	clean := "/" + strings.Join(g.walkSegments(p), "/")
	if clean == "/proc/sysrq-trigger" || clean == "/proc/sys/kernel/sysrq" {
		return clean + ", which acts on the kernel at once", true
	}
	if !strings.HasPrefix(clean, "/dev/") {
		return "", false
	}
	for _, pre := range blockDevicePrefixes {
		if strings.HasPrefix(clean, pre) {
			return "the block device " + clean, true
		}
		// A glob can reach a device: /dev/sd?, /dev/s*.
		if strings.ContainsAny(clean, "*?[") {
			if ok, _ := path.Match(clean, pre+"a"); ok {
				return "the block device " + clean, true
			}
			if ok, _ := path.Match(clean, pre+"0"); ok {
				return "the block device " + clean, true
			}
		}
	}
	return "", false
}

// systemDirs are top-level directories whose removal breaks the machine.
var systemDirs = map[string]bool{
	"/bin": true, "/boot": true, "/dev": true, "/etc": true, "/home": true, "/lib": true, "/lib32": true, "/lib64": true,
	"/libx32": true, "/opt": true, "/proc": true, "/root": true, "/run": true, "/sbin": true, "/srv": true, "/sys": true,
	"/usr": true, "/var": true, "/snap": true, "/nix": true, "/mnt": true, "/media": true,
	"/Users": true, "/System": true, "/Library": true, "/Applications": true, "/private": true, "/Volumes": true,
	"/usr/bin": true, "/usr/sbin": true, "/usr/lib": true, "/usr/lib32": true, "/usr/lib64": true, "/usr/libx32": true,
	"/usr/libexec": true, "/usr/share": true, "/usr/local": true, "/usr/include": true, "/var/lib": true, "/boot/efi": true,
	"/System/Library": true,
}

// systemDirChildren lists, per directory, the names of the system
// directories right under it, for matching a glob.
var systemDirChildren = func() map[string][]string {
	out := map[string][]string{}
	for d := range systemDirs {
		i := strings.LastIndexByte(d, '/')
		parent := d[:i]
		if parent == "" {
			parent = "/"
		}
		out[parent] = append(out[parent], d[i+1:])
	}
	return out
}()

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
			if mayChangeDir(n) {
				argv := []string{readWord(n.Args[0]).text}
				for _, w := range n.Args[1:] {
					argv = append(argv, readWord(w).text)
				}
				if dir, ok := g.cdTarget(argv); ok {
					g.moveTo(dir)
				}
			}
		case *syntax.Redirect:
			g.redirect(n, &tmp)
		case *syntax.FuncDecl:
			if n.Name != nil && forkBomb(n) {
				tmp.block("fork bomb: function " + n.Name.Value + " calls itself in a pipe or in the background")
			}
		case *syntax.WhileClause, *syntax.ForClause:
			if endlessSpawningLoop(n) {
				tmp.block("fork bomb: an endless loop starts a background process on every turn")
			}
		case *syntax.Stmt:
			if reExecSelf(n) {
				tmp.block(reExecReason)
			}
		}
		for _, r := range tmp.blocks {
			f.block(r)
		}
		return true
	})
}

// forkBomb reports a function that calls itself (directly or through a
// wrapper) inside a pipeline or a background statement.
func forkBomb(fd *syntax.FuncDecl) bool {
	name := fd.Name.Value
	selfCall, spawns := false, false
	syntax.Walk(fd.Body, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.CallExpr:
			for i, w := range n.Args {
				v := readWord(w).text
				if v == name || v == "$FUNCNAME" {
					selfCall = true
				}
				if i == 0 && wrappers[baseName(v)] == nil {
					break
				}
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
