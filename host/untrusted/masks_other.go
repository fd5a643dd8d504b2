//go:build !(goexperiment.simd && amd64)

package untrusted

// Without GOEXPERIMENT=simd on amd64 there is no vector code: Screen is
// the byte scan, and screenSparse (tested against it) computes every
// block's masks with blockMasks.
const haveVector = false

func vectorMasks(s string, from int, letter, special, anchor []uint64, sum *chunkSum) int {
	return 0
}
