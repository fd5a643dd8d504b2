//go:build goexperiment.simd

#include "go_asm.h"
#include "textflag.h"

// vbmiBlocks: vbmiMasks (masks_simd.go) in assembly, block for block
// the same bits, by the same steps but where said below; the comments
// there say why each is as it is. As with the AVX2 kernel (masks_avx2_amd64.s, stop 55), the
// point is the registers: every constant vector in a ZMM register for
// the whole loop, the sums in general registers and Z10.
//
// Where vbmiMasks combines masks (the letters but hi, hi^isLead, the
// firstAt bits or'ed), this combines vectors or tests under a write
// mask: the three instructions between mask registers (KANDNQ, KXORQ,
// KORQ), on the path from the tests to the general registers and one
// carried from block to block, were 17% of the kernel's time on the
// guest of BENCHMARKS.md (stop 63), left out alone.
//
// The anchor filter looks its five places up by the bytes loaded there
// (the block's bytes 0, 1, 2, 4 and 5 on), each by its low seven bits
// in a table of 128 (anchorRaw, two registers: VPERMI2B), a byte of
// 0x80 up taken as 0x7f first (VPMINUB): the same bits as vbmiMasks'
// tables by filterIndex of the bytes shifted into place, where each
// place was two byte permutes (a shift and a lookup) and the index
// three instructions a block. The bytes 1 and 2 on serve the markup
// fit and the gate too. Permutes a block 12 → 8; the kernel 0.88–0.89 of
// its time (stop 63, BENCHMARKS.md).
//
// Registers, the whole loop:
//
//	Z16-Z25  anchorRaw[0..4], the anchor filter's tables, [0:64] and
//	         [64:128] of each
//	Z1 0x7f: a byte of 0x80 up is looked up as 0x7f, no letter (VPMINUB)
//	Z28 classLetter  Z29, Z30 byteClass[0:64], [64:128]
//	Z31 markupNext   Z15 first, the boundary's first byte broadcast
//	Z13, Z14 gateThird[0:64], [64:128]
//	Z0, Z2, Z3  the block's bytes, those 1 and 2 places on
//	Z4-Z8   scratch
//	Z9 0x80 (the top bit)
//	Z10 firstAt's: each lane's least byte^first of the blocks so far
//	K1 the anchor filter's pass, K2 the bytes below 0x80 (not hi), K3
//	the special bytes, K4 the bytes whose top bit is their class's (hi
//	and isLead agree), K5 the letters, K6 scratch
//
//	SI  the block's bytes      BX  the block's index b, less n
//	R8, R9, R10  letter, special, anchor (at their ends)
//	R11 last (the top letter bit)  R12 words
//	R13 anchored, R15 withSpecial: a bit a block, rotated in at the top
//	    (NEGQ sets the carry where a mask is not 0, RCRQ takes it in),
//	    block b of n at bit 64-n+b after the loop (masks_avx2_amd64.s)
//	AX, CX, DX, DI scratch

// LOOK(x, lo, hi, v): v = the anchor table of lo and hi (anchorRaw)
// looked up by the bytes x, 0x80 up as 0x7f.
#define LOOK(x, lo, hi, v) \
	VPMINUB x, Z1, v; \
	VPERMI2B hi, lo, v

// func vbmiBlocks(p *byte, n int, letter, special, anchor *uint64, sum *chunkSum)
TEXT ·vbmiBlocks(SB), NOSPLIT, $0-48
	MOVQ    p+0(FP), SI
	MOVQ    n+8(FP), BX
	MOVQ    letter+16(FP), R8
	LEAQ    (R8)(BX*8), R8
	MOVQ    special+24(FP), R9
	LEAQ    (R9)(BX*8), R9
	MOVQ    anchor+32(FP), R10
	LEAQ    (R10)(BX*8), R10
	NEGQ    BX

	VMOVDQU64 ·anchorRaw+0(SB), Z16
	VMOVDQU64 ·anchorRaw+64(SB), Z17
	VMOVDQU64 ·anchorRaw+128(SB), Z18
	VMOVDQU64 ·anchorRaw+192(SB), Z19
	VMOVDQU64 ·anchorRaw+256(SB), Z20
	VMOVDQU64 ·anchorRaw+320(SB), Z21
	VMOVDQU64 ·anchorRaw+384(SB), Z22
	VMOVDQU64 ·anchorRaw+448(SB), Z23
	VMOVDQU64 ·anchorRaw+512(SB), Z24
	VMOVDQU64 ·anchorRaw+576(SB), Z25
	VMOVDQU64 ·byteClass+0(SB), Z29
	VMOVDQU64 ·byteClass+64(SB), Z30
	VMOVDQU64 ·markupNext+0(SB), Z31
	VMOVDQU64 ·gateThird+0(SB), Z13
	VMOVDQU64 ·gateThird+64(SB), Z14
	MOVL    $0x7f, AX
	VPBROADCASTB AX, Z1
	MOVL    $const_classLetter, AX
	VPBROADCASTB AX, Z28

	MOVQ    sum+40(FP), AX
	VPBROADCASTB chunkSum_first(AX), Z15
	MOVQ    chunkSum_top(AX), R11
	MOVQ    chunkSum_words(AX), R12
	XORQ    R13, R13
	XORQ    R15, R15
	MOVL    $0x80, AX
	VPBROADCASTB AX, Z9
	VPTERNLOGD $0xff, Z10, Z10, Z10 // all ones: no lane met first yet

loop:
	// The line 32 blocks on, asked for now (masks_avx2_amd64.s).
	PREFETCHT0 2048(SI)

	// The block's bytes, and those 1 and 2 places on; the anchor
	// filter by the bytes 0, 1, 2, 4, 5 places on. The five and'ed by a
	// three-way AND (VPTERNLOGD $0x80), an AND and the test: two
	// instructions fewer than four ANDs and a test, 2.5% of the kernel's
	// time (stop 60).
	VMOVDQU64 (SI), Z0
	VMOVDQU64 1(SI), Z2
	VMOVDQU64 2(SI), Z3
	LOOK(Z0, Z16, Z17, Z4)
	LOOK(Z2, Z18, Z19, Z5)
	LOOK(Z3, Z20, Z21, Z7)
	VPTERNLOGD $0x80, Z7, Z5, Z4
	LOOK(4(SI), Z22, Z23, Z5)
	LOOK(5(SI), Z24, Z25, Z7)
	VPANDQ  Z5, Z4, Z4
	VPTESTMB Z7, Z4, K1

	// The class by the low seven bits (Z6); hi, the next byte's fit
	// (its markupNext by its low six bits, the bytes one on loaded as
	// they are), isLead, the letters; firstAt's bits.
	VMOVDQA64 Z0, Z6
	VPERMI2B Z30, Z29, Z6
	// A line end's markup bits only where the byte two after it may
	// follow a turn marker's last gate, a lead's only where it may be an
	// invisible character's third (gateThird by its low seven bits).
	VMOVDQA64 Z3, Z8
	VPERMI2B Z14, Z13, Z8
	VPANDQ  Z8, Z6, Z6
	// K2: the bytes below 0x80; K4: those where hi and isLead agree
	// (the top bits of the byte and of its class equal).
	VPTESTNMB Z9, Z0, K2
	VPXORQ  Z0, Z6, Z8
	VPTESTNMB Z9, Z8, K4
	VPERMB  Z31, Z2, Z7
	// The special bytes: the fit where hi and isLead agree (a byte of
	// 0x80 up whose class is no lead's, or below with a lead's, is
	// none); the letters: the letter class but hi. Tests under a write
	// mask, not tests and'ed after.
	VPTESTMB Z7, Z6, K4, K3
	VPTESTMB Z28, Z6, K2, K5
	// firstAt: byte^first, the least kept by lane (0 where the
	// boundary's first byte was met; its bits after the loop).
	VPXORQ  Z15, Z0, Z8
	VPMINUB Z8, Z10, Z10

	// The letters (stored), the word starts (DX) and their count, the
	// top bit.
	KMOVQ   K5, AX
	MOVQ    AX, (R8)(BX*8)
	LEAQ    (R11)(AX*2), DX
	ANDNQ   AX, DX, DX
	MOVQ    AX, R11
	SHRQ    $63, R11
	POPCNTQ DX, CX
	ADDQ    CX, R12

	// The anchors at word starts (stored), and whether there are any
	// (anchored). Two instructions where a bit made by a shift took four
	// (and the shift one more): with withSpecial's, the kernel 0.92 of
	// its time (stop 62).
	KMOVQ   K1, DI
	ANDQ    DX, DI
	MOVQ    DI, (R10)(BX*8)
	NEGQ    DI
	RCRQ    $1, R13

	// The special bytes (stored), and whether there are any
	// (withSpecial).
	KMOVQ   K3, AX
	MOVQ    AX, (R9)(BX*8)
	NEGQ    AX
	RCRQ    $1, R15

	ADDQ    $64, SI
	INCQ    BX
	JNZ     loop

	// anchored and withSpecial: block b at bit b (a shift by 64-n, 0
	// when n is 64: the count is taken mod 64), or'ed into the sum's.
	MOVQ    n+8(FP), CX
	NEGQ    CX
	SHRQ    CX, R13
	SHRQ    CX, R15
	MOVQ    sum+40(FP), AX
	MOVQ    R11, chunkSum_top(AX)
	MOVQ    R12, chunkSum_words(AX)
	ORQ     R13, chunkSum_anchored(AX)
	ORQ     R15, chunkSum_withSpecial(AX)
	VPTESTNMB Z10, Z10, K6 // the lanes where first was met
	KMOVQ   K6, CX
	ORQ     CX, chunkSum_firstAt(AX)
	VZEROUPPER
	RET
