//go:build goexperiment.simd

#include "go_asm.h"
#include "textflag.h"
#include "funcdata.h"

// avx2Blocks: avx2Masks (masks_avx2.go) in assembly, to the same bits;
// the comments there say why each step is as it is. The point of
// writing it here is the registers: the Go code's constant vectors (15
// when it was measured, stop 55) were mostly reloaded every block and
// its scalars spilled.
//
// It makes the masks in two passes over the blocks (at most 64, 4 KiB):
//
//  1. each byte's slot (SLOTS), stored in the frame (slots: the n
//     blocks' and the next block's first 32 bytes'), the letters (the
//     slots not 0: stored), the word starts (stored in anchor, for
//     now) and their count, the top bit, and whether the boundary's
//     first byte is there;
//  2. the anchor filter, each table looked up by the slots k places on
//     loaded from the frame at k bytes on (a load, which VPSHUFB takes
//     as its operand), and'ed with the word starts; the lead and markup
//     bytes (MARKS, MARKUPQ), special.
//
// Until stop 60 one pass made it all, and the slots k places on came
// from the slot vector and the next one's by a VPERM2I128 and a
// VPALIGNR each (five shuffles a half block, 28 shuffles a block in
// all; 18 now), with every constant in a register or a memory operand
// and no register left for a pointer into the frame. Two passes: ~9
// instructions a block fewer (callgrind, 106 -> 98 on the line page),
// the kernel 5-15% less thread CPU (BENCHMARKS.md, stop 60, s60-a). A
// block's bytes are loaded once a pass (VMOVDQU to Y1): as three
// memory operands a half they made pass 2 5% slower (the loads, not
// the instructions, were what it waited for). Pass 2 reads what pass 1
// stored a whole pass before: a load that straddles two stores still
// in flight would wait for them to reach the cache.
//
// Registers:
//
//	Y5 fold, Y6 nib, Y7 c7f (both passes); Y1 the 32 bytes
//	pass 1: Y2, Y15 slotByIndex[0], [1]; Y9 off; Y14 the boundary's
//	    first byte in every byte; Y8 seen (bytes equal to it, or'ed)
//	pass 2: Y9-Y13 slotTables[0..4]; Y14 '\n' in every byte (nl,
//	    MARKS's gate); Y2, Y15 byLowHalf[0], [1]
//	Y0, Y3, Y4 scratch
//
//	BX  8*(b-n) for block b: one add and a branch a block, the masks at
//	    (R)(BX*1), the bytes and the slots at (R)(BX*8), each pointer R
//	    at its end
//	R8, R9, R10  letter (pass 1) or withSpecial (pass 2, a bit a block as R13),
//	    special, anchor
//	pass 1: SI the bytes, DI the slots in the frame, R11 last (the top
//	    letter bit), CX words
//	pass 2: DX the bytes, SI the block's, R11 the slots, R13 anchored
//	    (a bit a block, below), R12 markupQuick
//	AX, CX, DX, DI, R14 scratch

// SLOTS(x, dst, r): the slots of the 32 bytes x (slots in avx2Masks)
// stored at dst, their letters (the slots not 0) in r; seen (Y8) |= the
// bytes equal to the boundary's first. i = (x|0x20)-0x60 with signed
// saturation, filterIndex for 0x40-0x7F and negative for the rest (a
// shuffle makes those 0, no letter); the slot from slotByIndex[1] where
// i > 15, else from [0]. A slot not 0 is at most 15: 0x7F added with
// unsigned saturation sets the top bit of exactly those.
#define SLOTS(x, dst, r) \
	VMOVDQU x, Y1; \
	VPOR    Y1, Y5, Y0; \
	VPSUBSB Y9, Y0, Y0; \
	VPSHUFB Y0, Y15, Y3; \
	VPSHUFB Y0, Y2, Y4; \
	VPCMPGTB Y6, Y0, Y0; \
	VPBLENDVB Y0, Y3, Y4, Y3; \
	VMOVDQU Y3, dst; \
	VPADDUSB Y7, Y3, Y3; \
	VPMOVMSKB Y3, r; \
	VPCMPEQB Y1, Y14, Y0; \
	VPOR    Y0, Y8, Y8

// ANCHORS(o, r): r = the anchor filter of the 32 bytes whose slots are
// at o(R11): table k looked up by the slots filterPos[k] places on (0,
// 1, 2, 4, 5), and'ed; a bit for each byte where that is not 0.
#define ANCHORS(o, r) \
	VPSHUFB o(R11)(BX*8), Y9, Y3; \
	VPSHUFB o+1(R11)(BX*8), Y10, Y4; \
	VPAND   Y4, Y3, Y3; \
	VPSHUFB o+2(R11)(BX*8), Y11, Y4; \
	VPAND   Y4, Y3, Y3; \
	VPSHUFB o+4(R11)(BX*8), Y12, Y4; \
	VPAND   Y4, Y3, Y3; \
	VPSHUFB o+5(R11)(BX*8), Y13, Y4; \
	VPAND   Y4, Y3, Y3; \
	VPADDUSB Y7, Y3, Y3; \
	VPMOVMSKB Y3, r

// MARKS(x, nx, lead, mk): the lead bytes of invisible characters and
// the markup bytes among the 32 bytes x, each looked up by its low four
// bits (byLowHalf) and compared, a markup byte as max(x, 0x20) where the
// byte after (nx, the 32 bytes one on) is not '\n' (Y14): so a '\n'
// (0x0A) or '\r' (0x0D) only before a '\n'.
#define MARKS(x, nx, lead, mk) \
	VMOVDQU x, Y1; \
	VPAND   Y1, Y6, Y0; \
	VPCMPEQB nx, Y14, Y4; \
	VPANDN  Y5, Y4, Y4; \
	VPMAXUB Y1, Y4, Y4; \
	VPSHUFB Y0, Y2, Y3; \
	VPCMPEQB Y4, Y3, Y3; \
	VPMOVMSKB Y3, mk; \
	VPSHUFB Y0, Y15, Y4; \
	VPCMPEQB Y1, Y4, Y4; \
	VPMOVMSKB Y4, lead

// QUICKBIT(sp, mk): mk's lowest bit goes into sp when the four bytes
// from its byte pass the quick key (the byte of markupQuick at R12 by
// quickKey, 0 or 0xFF), and out of mk; the flags are those of what is
// left of mk. TZCNT gives 64 for an mk of 0 (MARKUPQ's first).
#define QUICKBIT(sp, mk) \
	TZCNTQ  mk, DI; \
	MOVL    (SI)(DI*1), R14; \
	ANDL    $0x1F421F1F, R14; \
	IMUL3L  $0x24FCBBAF, R14, R14; \
	SHRL    $20, R14; \
	MOVBQSX (R12)(R14*1), R14; \
	BLSIQ   mk, DI; \
	ANDQ    R14, DI; \
	ORQ     DI, sp; \
	BLSRQ   mk, mk

// MARKUPQ(sp, mk, loop, done): the markup bytes mk of the 64 bytes at
// SI whose four bytes may open markup (mayOpenMarkupQuick: the byte of
// markupQuick at R12 by quickKey of the four bytes from it, 0 or 0xFF;
// they are inside s, the next block is) go into sp. The first without a
// branch, the others one by one in a loop. Most blocks have none or one
// (a MiB of the user guides: 12.7 K of 16 K blocks none, 2.2 K one),
// and the branch on whether a block had any, mispredicted at each
// change, was a third of the screener's mispredicts; taking the first
// with none made them a sixth fewer on prose, three quarters on the
// line page, for ~10 instructions a block (stop 59, s59-c; the first two so
// was no faster). With mk 0, TZCNT gives 64: the four bytes read are
// the next block's first, and BLSI of 0 sets no bit. One loop a block,
// not one a half: a half's loop ends at a count (0 or 1, mostly) the
// branch predictor cannot tell.
#define MARKUPQ(sp, mk, loop, done) \
	QUICKBIT(sp, mk); \
	JZ      done; \
loop: \
	QUICKBIT(sp, mk); \
	JNZ     loop; \
done:

// func avx2Blocks(p *byte, n int, letter, special, anchor *uint64, sum *chunkSum, quick *[4096]uint8)
//
// n is 1 to 64 (the slots of 64 blocks and 32 bytes fill the frame).
// The frame makes the function split the stack if it must (it calls
// nothing else, and holds no pointers).
TEXT ·avx2Blocks(SB), 0, $4160-56
	NO_LOCAL_POINTERS
	MOVQ    p+0(FP), SI
	MOVQ    n+8(FP), BX
	MOVQ    letter+16(FP), R8
	LEAQ    (R8)(BX*8), R8
	MOVQ    special+24(FP), R9
	LEAQ    (R9)(BX*8), R9
	MOVQ    anchor+32(FP), R10
	LEAQ    (R10)(BX*8), R10
	SHLQ    $3, BX
	LEAQ    (SI)(BX*8), SI
	NEGQ    BX
	MOVQ    sum+40(FP), AX
	MOVQ    chunkSum_top(AX), R11
	MOVQ    chunkSum_words(AX), CX
	VPBROADCASTB chunkSum_first(AX), Y14
	VMOVDQU fold<>(SB), Y5
	VMOVDQU nib<>(SB), Y6
	VMOVDQU c7f<>(SB), Y7
	VMOVDQU off<>(SB), Y9
	VMOVDQU ·slotByIndex+0(SB), Y2
	VMOVDQU ·slotByIndex+32(SB), Y15
	VPXOR   Y8, Y8, Y8
	MOVQ    n+8(FP), DI
	SHLQ    $6, DI
	LEAQ    slots-4160(SP)(DI*1), DI

pass1:
	// The line 32 blocks on, asked for now: with the hardware
	// prefetcher alone the kernel was ~10 µs a MiB slower, on a text in
	// cache (a megabyte is twice L2) or in memory (the runtime copies a
	// megabyte or more with non-temporal stores, as a decoded result
	// may be). BENCHMARKS.md, stop 56 (s56-g). A prefetch past the text
	// does not fault.
	PREFETCHT0 2048(SI)(BX*8)
	SLOTS((SI)(BX*8), (DI)(BX*8), AX)
	SLOTS(32(SI)(BX*8), 32(DI)(BX*8), DX)
	// The block's letters l (stored), its word starts (stored in
	// anchor until pass 2) and their count, the top bit.
	SHLQ    $32, DX
	ORQ     DX, AX
	MOVQ    AX, (R8)(BX*1)
	LEAQ    (R11)(AX*2), DX
	ANDNQ   AX, DX, DX
	MOVQ    DX, (R10)(BX*1)
	MOVQ    AX, R11
	SHRQ    $63, R11
	POPCNTQ DX, DX
	ADDQ    DX, CX
	ADDQ    $8, BX
	JNZ     pass1

	// The next block's first 32 bytes' slots (the last block's anchor
	// filter looks 5 bytes on); not its letters, nor seen.
	VPOR    (SI), Y5, Y0
	VPSUBSB Y9, Y0, Y0
	VPSHUFB Y0, Y15, Y3
	VPSHUFB Y0, Y2, Y4
	VPCMPGTB Y6, Y0, Y0
	VPBLENDVB Y0, Y3, Y4, Y3
	VMOVDQU Y3, (DI)

	MOVQ    sum+40(FP), AX
	MOVQ    R11, chunkSum_top(AX)
	MOVQ    CX, chunkSum_words(AX)
	VPMOVMSKB Y8, CX
	ORQ     CX, chunkSum_firstAt(AX)
	XORQ    R8, R8

	VMOVDQU ·slotTables+0(SB), Y9
	VMOVDQU ·slotTables+32(SB), Y10
	VMOVDQU ·slotTables+64(SB), Y11
	VMOVDQU ·slotTables+96(SB), Y12
	VMOVDQU ·slotTables+128(SB), Y13
	VMOVDQU nl<>(SB), Y14
	VMOVDQU ·byLowHalf+0(SB), Y2
	VMOVDQU ·byLowHalf+32(SB), Y15
	MOVQ    n+8(FP), BX
	SHLQ    $3, BX
	NEGQ    BX
	MOVQ    quick+48(FP), R12
	XORQ    R13, R13
	MOVQ    n+8(FP), DX
	SHLQ    $6, DX
	LEAQ    slots-4160(SP)(DX*1), R11
	ADDQ    p+0(FP), DX

pass2:
	LEAQ    (DX)(BX*8), SI
	// The block's anchors at word starts (stored), and whether there
	// are any: the carry NEGQ sets when they are not 0 goes in at R13's
	// top (RCRQ), a bit a block, block b of n at bit 64-n+b after the
	// loop.
	ANCHORS(0, AX)
	ANCHORS(32, DI)
	SHLQ    $32, DI
	ORQ     AX, DI
	ANDQ    (R10)(BX*1), DI
	MOVQ    DI, (R10)(BX*1)
	NEGQ    DI
	RCRQ    $1, R13

	// The lead and markup bytes of the two halves; the block's special
	// bytes.
	MARKS((SI), 1(SI), AX, CX)
	MARKS(32(SI), 33(SI), DI, R14)
	SHLQ    $32, DI
	ORQ     DI, AX
	SHLQ    $32, R14
	ORQ     R14, CX
	MARKUPQ(AX, CX, markuploop, markupdone)
	MOVQ    AX, (R9)(BX*1)
	NEGQ    AX
	RCRQ    $1, R8

	ADDQ    $8, BX
	JNZ     pass2

	// anchored and withSpecial: block b at bit b (a shift by 64-n, 0
	// when n is 64: the count is taken mod 64), or'ed into the sum's.
	MOVQ    n+8(FP), CX
	NEGQ    CX
	SHRQ    CX, R13
	SHRQ    CX, R8
	MOVQ    sum+40(FP), AX
	ORQ     R13, chunkSum_anchored(AX)
	ORQ     R8, chunkSum_withSpecial(AX)
	VZEROUPPER
	RET

DATA fold<>+0(SB)/8, $0x2020202020202020
DATA fold<>+8(SB)/8, $0x2020202020202020
DATA fold<>+16(SB)/8, $0x2020202020202020
DATA fold<>+24(SB)/8, $0x2020202020202020
GLOBL fold<>(SB), RODATA|NOPTR, $32

DATA off<>+0(SB)/8, $0x6060606060606060
DATA off<>+8(SB)/8, $0x6060606060606060
DATA off<>+16(SB)/8, $0x6060606060606060
DATA off<>+24(SB)/8, $0x6060606060606060
GLOBL off<>(SB), RODATA|NOPTR, $32

DATA nib<>+0(SB)/8, $0x0f0f0f0f0f0f0f0f
DATA nib<>+8(SB)/8, $0x0f0f0f0f0f0f0f0f
DATA nib<>+16(SB)/8, $0x0f0f0f0f0f0f0f0f
DATA nib<>+24(SB)/8, $0x0f0f0f0f0f0f0f0f
GLOBL nib<>(SB), RODATA|NOPTR, $32

DATA c7f<>+0(SB)/8, $0x7f7f7f7f7f7f7f7f
DATA c7f<>+8(SB)/8, $0x7f7f7f7f7f7f7f7f
DATA c7f<>+16(SB)/8, $0x7f7f7f7f7f7f7f7f
DATA c7f<>+24(SB)/8, $0x7f7f7f7f7f7f7f7f
GLOBL c7f<>(SB), RODATA|NOPTR, $32

DATA nl<>+0(SB)/8, $0x0a0a0a0a0a0a0a0a
DATA nl<>+8(SB)/8, $0x0a0a0a0a0a0a0a0a
DATA nl<>+16(SB)/8, $0x0a0a0a0a0a0a0a0a
DATA nl<>+24(SB)/8, $0x0a0a0a0a0a0a0a0a
GLOBL nl<>(SB), RODATA|NOPTR, $32
