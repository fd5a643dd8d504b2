package redact

import (
	"io"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
)

// BenchmarkWriter streams log-like text through a Writer with 100 secrets
// of letters and digits, the case where first bytes match all the time.
func BenchmarkWriter(b *testing.B) {
	rng := rand.New(rand.NewPCG(7, 11))
	const alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	secrets := map[string]string{}
	for i := range 100 {
		v := make([]byte, 24+rng.IntN(17))
		for j := range v {
			v[j] = alphabet[rng.IntN(len(alphabet))]
		}
		secrets["S"+strconv.Itoa(i)] = string(v)
	}
	chunk := []byte(strings.Repeat("2026-11-30T12:00:00Z INFO build step 42 of 97: compiling package demiurge.dev/host/dispatch ok\n", 11000))[:1<<20]
	w := NewWriter(io.Discard, secrets)
	b.SetBytes(int64(len(chunk)))
	for b.Loop() {
		if _, err := w.Write(chunk); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkNewReplacer builds the replacer of a call with two secrets, as
// the host does for every call that has any, and applies it once.
func BenchmarkNewReplacer(b *testing.B) {
	secrets := []Secret{{Target: "API_KEY", Value: "sk-abcdefghijklmnop"}, {Target: "TOKEN", Value: "ghp_0123456789abcdef"}}
	for b.Loop() {
		if NewReplacer(secrets).String("a result that holds no secret") == "" {
			b.Fatal("empty")
		}
	}
}
