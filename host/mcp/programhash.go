package mcp

import (
	"crypto/sha256"
	"encoding/hex"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"

	"demiurge.dev/shared/fileid"
)

// A connect approval and a session allow are bound to what runs, not to
// its name: the plan's key carries the content hash of the resolved
// program and, for an interpreter, of the script it is given, so an
// edited program (or script) is another key and asks again.

// interpreters are the programs that run a script given as an argument,
// by base name, with the options of each family that take the next
// argument as a value and those that mean there is no script file (inline
// code, a module name: the manifest's fingerprint covers those).
var interpreters = []struct {
	names     *regexp.Regexp
	withValue map[string]bool
	noScript  map[string]bool
}{
	{regexp.MustCompile(`^(sh|bash|dash|zsh|ksh|mksh|fish)$`), set("-o", "-O", "--rcfile", "--init-file"), set("-c", "--command")},
	{regexp.MustCompile(`^(node|nodejs|bun)$`), set("-r", "--require", "--import", "--loader", "--experimental-loader", "-C", "--conditions", "--env-file"), set("-e", "--eval", "-p", "--print", "-i")},
	{regexp.MustCompile(`^deno$`), set("--config", "-c", "--import-map"), set("eval", "repl")},
	{regexp.MustCompile(`^(python[0-9.]*|pypy[0-9.]*)$`), set("-W", "-X", "--check-hash-based-pycs"), set("-c", "-m")},
	{regexp.MustCompile(`^(perl[0-9.]*)$`), set("-I", "-M", "-m"), set("-e", "-E")},
	{regexp.MustCompile(`^(ruby)$`), set("-I", "-r", "-C"), set("-e")},
	{regexp.MustCompile(`^(php[0-9.]*)$`), set("-c", "-d", "-z"), set("-r")},
	{regexp.MustCompile(`^(lua[0-9.]*|luajit)$`), set("-l"), set("-e")},
}

func set(items ...string) map[string]bool {
	m := make(map[string]bool, len(items))
	for _, it := range items {
		m[it] = true
	}
	return m
}

// scriptOf is the script file an interpreter would run, or "" when the
// command is no interpreter we know or its first operand is not a file.
func scriptOf(command string, args []string, cwd string) string {
	base := filepath.Base(command)
	for _, in := range interpreters {
		if !in.names.MatchString(base) {
			continue
		}
		for i := 0; i < len(args); i++ {
			a := args[i]
			switch {
			case a == "--":
				if i+1 < len(args) {
					return existingFile(args[i+1], cwd)
				}
				return ""
			case in.noScript[a]:
				return ""
			case in.withValue[a]:
				i++
			case strings.HasPrefix(a, "-"):
			default:
				return existingFile(a, cwd)
			}
		}
		return ""
	}
	return ""
}

func existingFile(arg, cwd string) string {
	p := arg
	if !filepath.IsAbs(p) {
		p = filepath.Join(cwd, p)
	}
	if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
		return filepath.Clean(p)
	}
	return ""
}

// contentHashes caches the hash of each program and script by the file's
// identity (device, inode, size, modification and change time), so that a
// turn does not read a 100 MB interpreter again: any write changes the
// change time.
var contentHashes struct {
	sync.Mutex
	m map[string]hashed
}

type hashed struct {
	id  fileid.ID
	sum string
}

// contentHash is the file's sha256, or a marker saying it could not be
// read (which still differs from any hash, and from the file's next
// readable state). The identity is the opened file's (fstat), before and
// after it is read, so a hash is cached under the identity of what was
// read, never of what a rename put at the path after a stat.
func contentHash(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return "unreadable"
	}
	defer f.Close()
	id, err := fileid.Of(f)
	ok := err == nil
	if ok {
		contentHashes.Lock()
		h, hit := contentHashes.m[path]
		contentHashes.Unlock()
		if hit && h.id.Equal(id) {
			return h.sum
		}
	}
	sum := "unreadable"
	d := sha256.New()
	if _, err := io.Copy(d, f); err == nil {
		sum = hex.EncodeToString(d.Sum(nil))
	}
	// Cache only if the file did not change while it was read.
	if after, err := fileid.Of(f); ok && err == nil && after.Equal(id) && sum != "unreadable" {
		contentHashes.Lock()
		if contentHashes.m == nil {
			contentHashes.m = map[string]hashed{}
		}
		contentHashes.m[path] = hashed{id: id, sum: sum}
		contentHashes.Unlock()
	}
	return sum
}
