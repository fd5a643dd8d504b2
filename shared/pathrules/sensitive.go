// Package pathrules names the credential-like paths that host and plugins
// both treat as sensitive: the host asks before touching them, the file
// tools leave them out of listings. It is defence in depth, not isolation.
package pathrules

import (
	"path"
	"strings"
)

// sensitiveDirs are directory names whose whole contents are sensitive.
var sensitiveDirs = map[string]bool{
	".ssh": true, ".aws": true, ".kube": true, ".gnupg": true, ".docker": true,
	".azure": true, ".gcloud": true, ".password-store": true, ".terraform.d": true,
}

// sensitiveFiles are exact file names that hold credentials or a record
// of what was typed (histories hold pasted tokens).
var sensitiveFiles = map[string]bool{
	".npmrc": true, ".pypirc": true, ".netrc": true, "_netrc": true, ".pgpass": true,
	".git-credentials": true, ".htpasswd": true, "credentials.json": true,
	".vault-token": true, ".my.cnf": true, "secrets.yaml": true, "secrets.yml": true,
	".s3cfg": true, ".boto": true, ".terraformrc": true, "terraform.rc": true,
	".lesshst": true, ".histfile": true, "fish_history": true, ".viminfo": true,
	".wget-hsts": true, ".yarnrc": true, ".gem/credentials": true,
}

// sensitivePairs are a directory and a file name in it (or a prefix of
// it, when it ends in *) that hold credentials, for names that are
// harmless elsewhere.
var sensitivePairs = [][2]string{
	{".cargo", "credentials*"}, {".gem", "credentials"}, {".composer", "auth.json"},
	{".config", "hub"}, {"git", "credentials"}, {".m2", "settings.xml"}, {".m2", "settings-security.xml"},
	{".gradle", "gradle.properties"}, {".config", "rclone"},
}

// sensitiveSuffixes are file extensions of key material.
var sensitiveSuffixes = []string{".pem", ".key", ".p12", ".pfx", ".keystore", ".jks", ".kdbx", ".ppk", ".gpg", ".asc"}

// sensitivePrefixes are file name prefixes of state that holds secrets.
var sensitivePrefixes = []string{".env", "terraform.tfstate"}

// keyTypes are what follows "id_" in an ssh private key's file name.
var keyTypes = []string{"rsa", "dsa", "ecdsa", "ed25519", "xmss"}

// systemFiles are absolute paths of the system's own secrets.
var systemFiles = map[string]bool{
	"/etc/shadow": true, "/etc/shadow-": true, "/etc/gshadow": true, "/etc/gshadow-": true,
	"/etc/sudoers": true, "/etc/security/opasswd": true, "/etc/master.passwd": true,
	"/etc/krb5.keytab": true, "/var/lib/sss": true,
}

// systemDirs are absolute directories whose whole contents are sensitive.
var systemDirs = []string{"/etc/sudoers.d/", "/etc/ssl/private/", "/root/", "/var/lib/sss/", "/etc/letsencrypt/"}

// procEntries are the per-process files of /proc that expose another
// process's environment, memory, arguments or open files.
var procEntries = map[string]bool{
	"environ": true, "cmdline": true, "mem": true, "maps": true, "smaps": true, "smaps_rollup": true,
	"pagemap": true, "auxv": true, "stack": true, "syscall": true, "fd": true, "fdinfo": true,
	"map_files": true, "root": true, "cwd": true, "exe": true, "personality": true,
}

// IsSensitive reports whether a slash- or OS-separated path names a
// credential-like file or lies inside a credential directory. The path is
// cleaned first (so //etc//shadow and /etc/./shadow are /etc/shadow) and
// compared case-insensitively, because case-insensitive file systems
// exist. Rules for system paths (/etc/shadow, /proc/<pid>/environ) apply
// to absolute paths only; the others to any path.
func IsSensitive(p string) bool {
	p = foldPath(p)
	abs := strings.HasPrefix(p, "/")
	// Clean without a copy when p is already clean; a relative path keeps
	// leading ".." elements, which no rule names.
	clean := path.Clean(p)
	if abs && systemSensitive(clean) {
		return true
	}
	// Walk the elements pairwise (a directory and what it holds) without
	// splitting: this runs for every path of every command the guard sees.
	prev, rest := "", clean
	for rest != "" {
		var part string
		part, rest, _ = strings.Cut(rest, "/")
		if part == "" || part == "." {
			continue
		}
		if sensitiveDirs[part] {
			return true
		}
		if prev == ".config" && (part == "gcloud" || part == "gh") {
			return true
		}
		if prev != "" && pairMatches(prev, part) {
			return true
		}
		if rest == "" && sensitiveName(part) {
			return true
		}
		prev = part
	}
	return false
}

// foldPath lower-cases p and turns backslashes into slashes, copying only
// when there is something to change.
func foldPath(p string) string {
	for i := 0; i < len(p); i++ {
		if c := p[i]; c == '\\' || 'A' <= c && c <= 'Z' || c >= 0x80 {
			return strings.ToLower(strings.ReplaceAll(p, "\\", "/"))
		}
	}
	return p
}

// sensitiveName judges the last element of a path on its own.
func sensitiveName(name string) bool {
	if sensitiveFiles[name] {
		return true
	}
	for _, s := range sensitivePrefixes {
		if strings.HasPrefix(name, s) {
			return true
		}
	}
	for _, s := range sensitiveSuffixes {
		if strings.HasSuffix(name, s) {
			return true
		}
	}
	// Shell and REPL histories: .bash_history, .python_history, ...
	if strings.HasPrefix(name, ".") && (strings.HasSuffix(name, "_history") || strings.HasSuffix(name, "-history")) {
		return true
	}
	// ssh private keys: id_rsa, id_ed25519_sk, id_rsa_work; never *.pub.
	if rest, ok := strings.CutPrefix(name, "id_"); ok && !strings.HasSuffix(name, ".pub") {
		for _, t := range keyTypes {
			if rest == t || strings.HasPrefix(rest, t+"_") || strings.HasPrefix(rest, t+"-") || strings.HasPrefix(rest, t+".") {
				return true
			}
		}
	}
	return false
}

func pairMatches(dir, name string) bool {
	for _, pr := range sensitivePairs {
		if dir != pr[0] {
			continue
		}
		if prefix, ok := strings.CutSuffix(pr[1], "*"); ok && strings.HasPrefix(name, prefix) || name == pr[1] {
			return true
		}
	}
	return false
}

// systemSensitive judges a cleaned, lower-case absolute path against the
// system's secrets and /proc.
func systemSensitive(p string) bool {
	if systemFiles[p] {
		return true
	}
	for _, d := range systemDirs {
		if strings.HasPrefix(p, d) {
			return true
		}
	}
	// ssh host keys: /etc/ssh/ssh_host_*_key (the .pub halves are public).
	if rest, ok := strings.CutPrefix(p, "/etc/ssh/"); ok && strings.HasPrefix(rest, "ssh_host_") && !strings.HasSuffix(rest, ".pub") {
		return true
	}
	if rest, ok := strings.CutPrefix(p, "/proc/"); ok {
		return procSensitive(strings.Split(rest, "/"))
	}
	return false
}

// procSensitive judges the elements of a path below /proc:
// <pid>/<entry>, <pid>/task/<tid>/<entry>, with <pid> a number, self or
// thread-self (which stands for <pid>/task/<tid>).
func procSensitive(parts []string) bool {
	if len(parts) < 2 || !procID(parts[0]) {
		return false
	}
	rest := parts[1:]
	if len(rest) >= 3 && rest[0] == "task" && procID(rest[1]) {
		rest = rest[2:]
	}
	return procEntries[rest[0]]
}

func procID(s string) bool {
	if s == "self" || s == "thread-self" {
		return true
	}
	if s == "" {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// WithDirs returns a sensitivity check that is IsSensitive plus every
// path at or under one of dirs (absolute; the host passes its state
// directory, in its written and resolved forms). Relative paths and empty
// dirs are ignored; comparison folds case, like IsSensitive.
func WithDirs(dirs ...string) func(string) bool {
	var roots []string
	for _, d := range dirs {
		if strings.HasPrefix(d, "/") {
			roots = append(roots, strings.ToLower(path.Clean(d)))
		}
	}
	return func(p string) bool {
		if IsSensitive(p) {
			return true
		}
		if !strings.HasPrefix(p, "/") {
			return false
		}
		c := strings.ToLower(path.Clean(p))
		for _, r := range roots {
			if c == r || r == "/" || strings.HasPrefix(c, r+"/") {
				return true
			}
		}
		return false
	}
}
