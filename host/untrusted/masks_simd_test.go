//go:build goexperiment.simd && amd64

package untrusted

import (
	"math/bits"
	"math/rand/v2"
	"simd/archsimd"
	"slices"
	"strings"
	"testing"
)

// TestVectorMasks: each vector kernel this CPU has computes
// blockMasks' masks and their sums, block for block: on random bytes
// (every byte value, letters in both cases around the anchor words),
// on the benchmark pages, on every pair of bytes (each markup byte with
// every next byte), and with each anchor word, markup and lead byte at
// every offset across the first block edges, on every markup byte
// followed by every two bytes as its second and fourth, from four
// places (the fourth byte in the next block), and on every markup
// spelled in full at every place in a block. The AVX2 kernel runs on
// any CPU with AVX2, VBMI or not.
// The VBMI kernel's special bits may be other only at bytes judged to
// nothing (judgedToNothing): it passes the markup bytes whose next byte
// fits some markup's second (its two-byte test, markupNext) and whose
// byte two after may be some markup's third, and the lead bytes whose
// byte two after may be an invisible character's third (gateThird);
// blockMasks the markup bytes whose four bytes mayOpenMarkupQuick passes
// and every lead byte. Neither is the other's superset (the low five
// bits alias: "<\xdcab" is no "<|" to markupAt), and each passes every
// markup's and invisible character's first byte. A bit more is judged
// and finds nothing; none is missing where judge finds something
// (vbmiMasks' comment).
func TestVectorMasks(t *testing.T) {
	kernels := []struct {
		name     string
		have     bool
		run      func(s string, from int, letter, special, anchor []uint64, sum *chunkSum) int
		superset bool
	}{{"vbmi", haveVBMI, vbmiMasks, true}, {"vbmiasm", haveVBMIAsm, vbmiMasksAsm, true}, {"avx2", haveAVX2, avx2Masks, false}, {"avx2asm", haveAVX2Asm, avx2MasksAsm, false}}
	texts := maskTexts()
	for _, k := range kernels {
		t.Run(k.name, func(t *testing.T) {
			if !k.have {
				t.Skipf("no %s on this CPU", k.name)
			}
			checkKernel(t, k.run, texts, k.superset)
		})
	}
}

// TestVBMIGatesByTheirThirdByte: the VBMI kernels keep a blank line's
// gate (a '\n' or '\r' before a '\n') as special exactly where the byte
// two after it has the low seven bits of a turn marker's third byte from
// its last gate (turnThirds, a letter in either case: gateThird): before
// stop 61 every paragraph break was kept (2,337 a MiB of the user
// guides), each judged by specialState (a fifth of the screener in the
// call); by the low six bits until stop 62, "\n\n```", "\n\nIn" and
// "\n\n(" were kept too (1,013 where seven keep 397).
func TestVBMIGatesByTheirThirdByte(t *testing.T) {
	var third [128]bool
	for _, c := range []byte(" \thasHAS") { // a role's first letter, or line space that is no gate
		third[c] = true
	}
	// Each third byte above, and bytes that share their low six bits
	// with one ('`' a space's, 'I' a tab's, '(' an h's, '!' an a's, '3'
	// an s's) or their low seven (0xA0 a space's).
	texts := append(maskTexts(), strings.Repeat("One.\n\nTwo\n\nAssistant: \n\n\thuman:\r\n\r\nThe end\n\n\n\nIn\r\n\r\n Sys\n\n```go\n\n(x)\n\n!\n\n3\n\n\xa0\n\nSo", 9))
	gate := func(s string, p int) bool { return (s[p] == '\n' || s[p] == '\r') && s[p+1] == '\n' }
	checkKeptByThird(t, texts, "blank line's gate", gate, func(_, c byte) bool { return third[c&127] })
}

// checkKeptByThird fails t unless each VBMI kernel (the Go one and the
// assembly, where this CPU has them) keeps as special exactly the bytes
// of texts that are what (at) where keep says their byte two after lets
// them be kept, and the texts hold some of each.
func checkKeptByThird(t *testing.T, texts []string, what string, at func(s string, p int) bool, keep func(b, third byte) bool) {
	t.Helper()
	if !haveVBMI {
		t.Skip("no AVX-512 VBMI on this CPU")
	}
	kernels := map[string]func(s string, from int, letter, special, anchor []uint64, sum *chunkSum) int{"vbmi": vbmiMasks}
	if haveVBMIAsm {
		kernels["vbmiasm"] = vbmiMasksAsm
	}
	for name, run := range kernels {
		kept, refused := 0, 0
		for _, s := range texts {
			n := (len(s) + 63) / 64
			l, sp, a := make([]uint64, n), make([]uint64, n), make([]uint64, n)
			done := run(s, 0, l, sp, a, &chunkSum{})
			for b := range done {
				for j := range 64 {
					p := 64*b + j
					if !at(s, p) {
						continue
					}
					want := keep(s[p], s[p+2])
					if got := sp[b]>>j&1 == 1; got != want {
						t.Fatalf("%s: the %s %q at %d of %q kept %v, want %v (the byte two after it %q)", name, what, s[p], p, s[max(0, p-8):min(len(s), p+8)], got, want, s[p+2])
					}
					if want {
						kept++
					} else {
						refused++
					}
				}
			}
		}
		if kept == 0 || refused == 0 {
			t.Fatalf("%s: %d of the texts' %ss kept, %d refused: want some of each", name, kept, what, refused)
		}
	}
}

// TestVBMIKeepsLeadsBeforeAnInvisibleThird: the VBMI kernels keep a
// lead byte (0xE2, 0xEF, 0xF3) as special exactly where the byte two
// after it has the low seven bits of an invisible character's third
// byte (gateThird): a dash or a quote ("\xe2\x80\x94") is none, and was
// judged for nothing (157 special bytes a MiB of the user guides; stop
// 62). The thirds are taken from invisibleAt here, byte by byte.
func TestVBMIKeepsLeadsBeforeAnInvisibleThird(t *testing.T) {
	var third [128]bool
	for _, lead := range []byte{0xE2, 0xEF, 0xF3} {
		for b1 := 0; b1 < 256; b1++ {
			for b2 := 0; b2 < 256; b2++ {
				if _, kind := invisibleAt(string([]byte{lead, byte(b1), byte(b2), 'x'}), 0); kind != invNone {
					third[b2&127] = true
				}
			}
		}
	}
	var b strings.Builder
	for c := 0; c < 256; c++ { // every byte two after each lead, as a sequence's third and not
		for _, lead := range []byte{0xE2, 0xEF, 0xF3} {
			b.Write([]byte{'a', lead, 0x80, byte(c), ' ', lead, 'x', byte(c), ' '})
		}
	}
	texts := append(maskTexts(), b.String()+"\u2014 \u2019 \u2026 \u200b \u202e \u2066 \ufeff \U000E0041 "+strings.Repeat("\u2014", 40))
	lead := func(s string, p int) bool { return class[s[p]] == clsUnicode }
	checkKeptByThird(t, texts, "lead byte", lead, func(_, c byte) bool { return third[c&127] })
}

// TestVBMIKeepsMarkupBeforeAThird: the VBMI kernels keep a '<', '[' or
// '"' as special only where the byte two after it has the low seven
// bits of the third byte of a spelling it starts (markupByLead, a letter
// in either case) or, for '<', of a special token (a letter, digit, '_',
// '-' or space, or an invisible character's lead: gateThird): a quote
// before "the" or a link's "[a" is none (311 and 51 special bytes a MiB
// of the user guides; stop 62). Each lead is followed by a second byte
// its two-byte test passes, then every byte.
func TestVBMIKeepsMarkupBeforeAThird(t *testing.T) {
	thirds := map[byte]*[128]bool{'<': {}, '[': {}, '"': {}}
	for lead, set := range thirds {
		for m := range markups {
			if c := m.text[2]; m.text[0] == lead {
				set[c&127] = true
				if c >= 'a' && c <= 'z' {
					set[c-0x20] = true
				}
			}
		}
	}
	for c := byte('a'); c <= 'z'; c++ {
		thirds['<'][c], thirds['<'][c-0x20] = true, true
	}
	for _, c := range []byte("0123456789_- \xc2\xe2\xef") {
		thirds['<'][c&127] = true
	}
	var b strings.Builder
	for c := 0; c < 256; c++ {
		b.Write([]byte{'x', '<', '|', byte(c), 'y', ' ', '<', 't', byte(c), ' ', '[', 'i', byte(c), ' ', '"', 'r', byte(c), ' '})
	}
	texts := []string{b.String(), benchPage(1 << 16), fixturePage(1 << 16)}
	// One of the three, not refused by its second byte (markupNext).
	markup := func(s string, p int) bool {
		return thirds[s[p]] != nil && markupNext[s[p+1]&63]&markupBit[s[p]] != 0
	}
	checkKeptByThird(t, texts, "markup byte", markup, func(lead, c byte) bool { return thirds[lead][c&127] })
}

// judgedToNothing is the special bytes of the block at i that judge
// finds nothing at and steps over nothing from: the markup bytes where
// markupAt finds nothing, and the lead bytes that start no invisible
// character (invisibleAt; gateThird says why those step over nothing
// that counts). There the VBMI kernel's special mask and blockMasks' may
// differ.
func judgedToNothing(s string, i int) (m uint64) {
	for j := 0; j < 64 && i+j < len(s); j++ {
		switch class[s[i+j]] {
		case clsMarkup:
			var f found
			if markupAt(&f, s, i+j); f.n == 0 {
				m |= 1 << j
			}
		case clsUnicode:
			if _, kind := invisibleAt(s, i+j); kind == invNone {
				m |= 1 << j
			}
		}
	}
	return m
}

func maskTexts() []string {
	r := rand.New(rand.NewPCG(30, 4))
	var words []string
	for w := range vocabulary {
		words = append(words, w, strings.ToUpper(w), w+"s", w[:len(w)-1])
	}
	texts := []string{benchPage(1 << 20), benchPage(4 << 10), fixturePage(1 << 20)}
	for n := 0; n < 300; n++ {
		b := make([]byte, 64+r.IntN(1000))
		for i := range b {
			switch r.IntN(4) {
			case 0:
				b[i] = byte(r.IntN(256))
			case 1:
				const odd = " <[\"\n\r\xe2\xef\xf3@`{"
				b[i] = odd[r.IntN(len(odd))]
			default:
				w := words[r.IntN(len(words))]
				i += copy(b[i:], w)
				if i < len(b) {
					b[i] = ' '
				}
			}
		}
		texts = append(texts, string(b))
	}
	// Every byte followed by every byte.
	var pairs []byte
	for c := 0; c < 256; c++ {
		for d := 0; d < 256; d++ {
			pairs = append(pairs, byte(c), byte(d))
		}
	}
	texts = append(texts, string(pairs), string(pairs[1:]))
	// Every markup byte followed by every two bytes, as its second and
	// fourth (mayOpenMarkupQuick's key; the third one of two), the
	// quads at four places in the blocks (so that every one crosses an
	// edge).
	var quads []byte
	for _, c := range []byte("<[\"\n\r") {
		for d := 0; d < 256; d++ {
			for e := 0; e < 256; e++ {
				quads = append(quads, c, byte(d), "x\n"[e&1], byte(e))
			}
		}
	}
	texts = append(texts, string(quads), string(quads[1:]), string(quads[2:]), string(quads[3:]))
	// Every markup spelled in full, at every place in a block.
	var all []string
	for m := range markups {
		all = append(all, m.text, strings.ToUpper(m.text))
	}
	slices.Sort(all)
	for off := 0; off < 67; off++ {
		texts = append(texts, strings.Repeat(" ", off)+strings.Join(all, " x ")+"<|im_middle|> x")
	}
	// Each anchor word, markup and lead byte at every offset in a
	// frame of four blocks to past the second block edge, in spaces and
	// in letters.
	pieces := []string{"<|im_start|>", "[INST]", "\"role\"", "\n\nHuman:", "\xe2\x80\x8b", "\xef\xbb\xbf", "\xf3\xa0\x80\x81", "<b", "\nJ", "\r\n\r\nHuman:", "\r\nJ"}
	for w, r := range vocabulary {
		if r&anchorRoles != 0 {
			pieces = append(pieces, w, strings.ToUpper(w[:1])+w[1:])
		}
	}
	slices.Sort(pieces[11:])
	for _, fill := range []string{" ", "x"} {
		var b strings.Builder
		for _, w := range pieces {
			for off := 0; off <= 130; off++ {
				b.WriteString(strings.Repeat(fill, off))
				b.WriteString(w)
				b.WriteString(strings.Repeat(fill, 256-off-len(w)))
			}
		}
		texts = append(texts, b.String())
	}
	return texts
}

func checkKernel(t *testing.T, vectorMasks func(s string, from int, letter, special, anchor []uint64, sum *chunkSum) int, texts []string, superset bool) {
	for k, s := range texts {
		// From the first block and from a later one, into arrays of
		// the whole rest or of a chunk's few blocks.
		nb := (len(s) + 63) / 64
		for _, from := range []int{0, k % nb, nb - 1} {
			n := nb - from
			if k%2 == 1 {
				n = min(n, 1+k%chunkBlocks)
			}
			l, sp, a := make([]uint64, n), make([]uint64, n), make([]uint64, n)
			top := uint64(k % 2)
			first := s[k%len(s)]
			sum := chunkSum{top: top, first: first}
			done := vectorMasks(s, from, l, sp, a, &sum)
			if want := min(n, max(len(s)-64*(from+1), 0)/64); done != want {
				t.Fatalf("%d of %d blocks by vector from block %d", done, n, from)
			}
			var want chunkSum
			for b := 0; b < done; b++ {
				wl, ws, wa := blockMasks(s, 64*(from+b), top)
				starts := wl &^ (wl<<1 | top)
				top = wl >> 63
				want.words += bits.OnesCount64(starts)
				want.anchored |= nonZero(wa) << b
				if superset && (sp[b]^ws)&^judgedToNothing(s, 64*(from+b)) == 0 {
					ws = sp[b] // other only where judge finds nothing
				}
				want.withSpecial |= nonZero(ws) << b
				for j := 0; j < 64; j++ {
					if s[64*(from+b)+j] == first {
						want.firstAt |= 1 << j
					}
				}
				if l[b] != wl || sp[b] != ws || a[b] != wa {
					t.Fatalf("block %d of %q:\nletter %064b\n  want %064b\nspecial %064b\n   want %064b\nanchor %064b\n  want %064b",
						from+b, s[64*(from+b):min(len(s), 64*(from+b)+64)], l[b], wl, sp[b], ws, a[b], wa)
				}
			}
			// anchored has a bit a block for a chunk's 64 at most (the
			// assembly's are the last 64 blocks' when there are more).
			if done > chunkBlocks {
				sum.anchored = want.anchored
			}
			// firstAt need only be 0 when the byte is nowhere.
			if (sum.firstAt != 0) != (want.firstAt != 0) {
				t.Fatalf("firstAt %064b of %d blocks from block %d, want %064b", sum.firstAt, done, from, want.firstAt)
			}
			sum.firstAt = want.firstAt
			if want.top, want.first = top, first; sum != want {
				t.Fatalf("the sums of %d blocks from block %d: %+v, want %+v", done, from, sum, want)
			}
		}
	}
}

// TestVectorKernel: with AVX2, VBMI or not, Screen is by masks.
func TestVectorKernel(t *testing.T) {
	if archsimd.X86.AVX2() && !haveVector {
		t.Fatal("AVX2 but no vector kernel: Screen is the byte scan")
	}
}

// TestAVX2Verdicts runs the verdict tests with the AVX2 kernel on a CPU
// with VBMI, where Screen uses the VBMI kernel. (With AVX2 alone the
// other tests run the AVX2 kernel.)
func TestAVX2Verdicts(t *testing.T) {
	if !haveVBMI || !haveAVX2 {
		t.Skip("Screen uses the AVX2 kernel here, or none: the other tests run it")
	}
	forceAVX2 = true
	defer func() { forceAVX2 = false }()
	TestScreenIsTheOracles(t)
	TestChunkEdges(t)
}

// TestVBMIGoVerdicts runs the verdict tests with the Go VBMI kernel
// (vbmiMasks), the assembly's reference, which Screen does not use where
// the assembly runs.
func TestVBMIGoVerdicts(t *testing.T) {
	if !haveVBMIAsm {
		t.Skip("Screen uses the Go VBMI kernel here, or none: the other tests run it")
	}
	forceVBMIGo = true
	defer func() { forceVBMIGo = false }()
	TestScreenIsTheOracles(t)
	TestChunkEdges(t)
}

// TestAVX2GoVerdicts runs the verdict tests with the Go AVX2 kernel
// (avx2Masks), the assembly's reference, which Screen does not use where
// the assembly runs.
func TestAVX2GoVerdicts(t *testing.T) {
	if !haveAVX2 {
		t.Skip("no AVX2 on this CPU")
	}
	forceAVX2, forceAVX2Go = true, true
	defer func() { forceAVX2, forceAVX2Go = false, false }()
	TestScreenIsTheOracles(t)
	TestChunkEdges(t)
}
