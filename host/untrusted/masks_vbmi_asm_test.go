//go:build goexperiment.simd && amd64

package untrusted

import "testing"

// TestVBMIAsmIsTheReference: the VBMI assembly kernel (vbmiMasksAsm)
// makes exactly what the Go one (vbmiMasks) makes, the count, every
// mask and every sum (firstAt's bits too, and anchored past 64 blocks),
// and writes no mask past the blocks it did, on
// TestAVX2AsmIsTheReference's texts (the corpus, the mask tests' texts,
// random texts of every byte value with markup and lead bytes at block
// edges, lengths around 64*from+128, every count of blocks to 64 and
// the whole text, sums of every kind).
func TestVBMIAsmIsTheReference(t *testing.T) {
	if !haveVBMIAsm {
		t.Skip("no AVX-512 VBMI (with POPCNT and BMI1) on this CPU")
	}
	checkAsmIsTheReference(t, vbmiMasksAsm, vbmiMasks)
}
