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

// sensitiveFiles are exact file names that hold credentials.
var sensitiveFiles = map[string]bool{
	".npmrc": true, ".pypirc": true, ".netrc": true, "_netrc": true, ".pgpass": true,
	".git-credentials": true, ".htpasswd": true, "credentials.json": true,
	"id_rsa": true, "id_dsa": true, "id_ecdsa": true, "id_ed25519": true,
	".vault-token": true, ".my.cnf": true, "secrets.yaml": true, "secrets.yml": true,
}

// sensitiveSuffixes are file extensions of key material.
var sensitiveSuffixes = []string{".pem", ".key", ".p12", ".pfx", ".keystore", ".jks", ".kdbx"}

// IsSensitive reports whether a slash- or OS-separated path names a
// credential-like file or lies inside a credential directory. Comparison is
// case-insensitive, because case-insensitive file systems exist.
func IsSensitive(p string) bool {
	p = strings.ToLower(strings.ReplaceAll(p, "\\", "/"))
	parts := strings.Split(path.Clean("/"+p), "/")
	for i, part := range parts {
		if part == "" {
			continue
		}
		last := i == len(parts)-1
		if sensitiveDirs[part] {
			return true
		}
		// .config/gcloud, .config/gh hold tokens as well.
		if part == ".config" && i+1 < len(parts) && (parts[i+1] == "gcloud" || parts[i+1] == "gh") {
			return true
		}
		if !last {
			continue
		}
		if sensitiveFiles[part] || part == ".env" || strings.HasPrefix(part, ".env.") {
			return true
		}
		for _, s := range sensitiveSuffixes {
			if strings.HasSuffix(part, s) {
				return true
			}
		}
	}
	return false
}
