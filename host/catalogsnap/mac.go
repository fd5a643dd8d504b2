package catalogsnap

import (
	"bytes"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// A snapshot is what the launcher prints as the catalog without asking the
// host, so a file anyone but the host wrote must never be one: a tool that
// runs as the same user can write the cache directory. Each snapshot
// therefore starts with an HMAC-SHA256 of its body, keyed by a random
// secret the host keeps in a 0600 file of its own under the state
// directory; a snapshot without a valid MAC is a miss.

// macPrefix starts a snapshot file; the hex MAC and a newline follow, then
// the JSON body.
const macPrefix = "demiurge-catalog-snapshot-hmac-sha256 "

const keySize = 32

// KeyFile is the snapshot MAC key under the state directory.
func KeyFile(stateDir string) string { return filepath.Join(stateDir, "keys", "catalog-snapshot.key") }

// readMACKey reads the key; a key file that is not a regular file of
// exactly keySize bytes private to its owner is refused.
func readMACKey(stateDir string) ([]byte, error) {
	f, err := os.OpenFile(KeyFile(stateDir), os.O_RDONLY|noFollow, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() || st.Mode().Perm()&0o077 != 0 || st.Size() != keySize {
		return nil, fmt.Errorf("catalog snapshot key %s is not a %d-byte file private to its owner (mode %v)", KeyFile(stateDir), keySize, st.Mode())
	}
	key := make([]byte, keySize)
	if _, err := io.ReadFull(f, key); err != nil {
		return nil, err
	}
	return key, nil
}

// macKey returns the host's key, creating it on first use. Two hosts
// creating it at once agree: the loser of O_EXCL reads the winner's.
func macKey(stateDir string) ([]byte, error) {
	if key, err := readMACKey(stateDir); err == nil || !errors.Is(err, os.ErrNotExist) {
		return key, err
	}
	path := KeyFile(stateDir)
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("catalog snapshot key: %w", err)
	}
	key := make([]byte, keySize)
	if _, err := rand.Read(key); err != nil {
		return nil, err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".key-*")
	if err != nil {
		return nil, fmt.Errorf("catalog snapshot key: %w", err)
	}
	defer os.Remove(tmp.Name())
	_, err = tmp.Write(key)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		// Link, not rename: an existing key is never replaced.
		err = os.Link(tmp.Name(), path)
	}
	if err != nil && !errors.Is(err, os.ErrExist) {
		return nil, fmt.Errorf("catalog snapshot key: %w", err)
	}
	return readMACKey(stateDir)
}

func mac(key, body []byte) []byte {
	m := hmac.New(sha256.New, key)
	m.Write(body)
	return m.Sum(nil)
}

// seal prefixes body with its MAC.
func seal(key, body []byte) []byte {
	out := make([]byte, 0, len(macPrefix)+2*sha256.Size+1+len(body))
	out = append(out, macPrefix...)
	out = hex.AppendEncode(out, mac(key, body))
	out = append(out, '\n')
	return append(out, body...)
}

// open returns the body of a sealed file whose MAC is valid under key.
func open(key, raw []byte) ([]byte, bool) {
	rest, ok := bytes.CutPrefix(raw, []byte(macPrefix))
	if !ok || len(rest) < 2*sha256.Size+1 || rest[2*sha256.Size] != '\n' {
		return nil, false
	}
	got := make([]byte, sha256.Size)
	if _, err := hex.Decode(got, rest[:2*sha256.Size]); err != nil {
		return nil, false
	}
	body := rest[2*sha256.Size+1:]
	if !hmac.Equal(got, mac(key, body)) {
		return nil, false
	}
	return body, true
}
