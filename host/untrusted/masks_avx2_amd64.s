//go:build goexperiment.simd

#include "go_asm.h"
#include "textflag.h"

// avx2Blocks: avx2Masks (masks_avx2.go) in assembly, block for block
// the same steps; the comments there say why each is as it is. The
// point of writing it here is the registers: the Go code's constant
// vectors (15 when it was measured, stop 55) were mostly reloaded every
// block and its scalars spilled.
//
// Registers, the whole loop:
//
//	Y9-Y13  slotTables[0..4], the anchor filter's tables
//	Y14     '\n' in every byte (nl), MARKS's gate
//	Y2, Y15 slotByIndex[0], [1]: the slots of the indexes 0-15, 16-31
//	Y8      seen: bytes equal to the boundary's first byte, or'ed
//	Y6, Y7  the next block's first 32 bytes and their slots (carried)
//	Y1, Y5  this block's second 32 bytes and their slots
//	Y0, Y3, Y4 scratch
//	the rest of the constants are memory operands (fold, off, nib,
//	c7f below; first, the boundary's byte broadcast, in the frame),
//	as are byLowHalf's two tables, loaded when used.
//
//	SI  the block's bytes      BX  the block's index b, less n
//	R8, R9, R10  letter, special, anchor
//	R11 last (the top letter bit)  R13 anchored (a bit a block, below)
//	R12 markupQuick
//	DX  the carried letters of the next block's first 32 bytes, then
//	    the block's word starts
//	AX, CX, DI, R14 scratch
//	words and specials add up in the frame.

// SLOTS(x, v): v = the slots of the 32 bytes x (slots in avx2Masks).
// i = (x|0x20)-0x60 with signed saturation, filterIndex for 0x40-0x7F
// and negative for the rest (a shuffle makes those 0, no letter); the
// slot from slotByIndex[1] where i > 15, else from [0].
#define SLOTS(x, v) \
	VPOR    fold<>(SB), x, Y0; \
	VPSUBSB off<>(SB), Y0, Y0; \
	VPSHUFB Y0, Y15, Y3; \
	VPSHUFB Y0, Y2, Y4; \
	VPCMPGTB nib<>(SB), Y0, Y0; \
	VPBLENDVB Y0, Y3, Y4, v

// NONZERO(v, r): r = a bit for each byte of v that is not 0 (0x7F
// added with unsigned saturation sets the top bit of exactly those).
#define NONZERO(v, r) \
	VPADDUSB c7f<>(SB), v, Y0; \
	VPMOVMSKB Y0, r

// ANCHORS(v, w, r): r = the anchor filter of the 32 bytes of slots v,
// the next 32 bytes' being w: table k looked up by the slots
// filterPos[k] places on (0, 1, 2, 4, 5), and'ed. Y0 is v's high lane
// and w's low, so that VPALIGNR p of it and v is the slots p places on
// in both lanes.
#define ANCHORS(v, w, r) \
	VPERM2I128 $0x21, w, v, Y0; \
	VPSHUFB v, Y9, Y3; \
	VPALIGNR $1, v, Y0, Y4; \
	VPSHUFB Y4, Y10, Y4; \
	VPAND   Y4, Y3, Y3; \
	VPALIGNR $2, v, Y0, Y4; \
	VPSHUFB Y4, Y11, Y4; \
	VPAND   Y4, Y3, Y3; \
	VPALIGNR $4, v, Y0, Y4; \
	VPSHUFB Y4, Y12, Y4; \
	VPAND   Y4, Y3, Y3; \
	VPALIGNR $5, v, Y0, Y4; \
	VPSHUFB Y4, Y13, Y4; \
	VPAND   Y4, Y3, Y3; \
	NONZERO(Y3, r)

// MARKS(x, nx, lead, mk): the lead bytes of invisible characters and
// the markup bytes among the 32 bytes x, each looked up by its low four
// bits (byLowHalf) and compared, a markup byte as max(x, 0x20) where the
// byte after (nx, the 32 bytes one on) is not '\n' (Y14): so a '\n'
// (0x0A) or '\r' (0x0D) only before a '\n'; also seen |= the bytes
// equal to first.
#define MARKS(x, nx, lead, mk) \
	VPAND   nib<>(SB), x, Y0; \
	VPCMPEQB nx, Y14, Y4; \
	VPANDN  fold<>(SB), Y4, Y4; \
	VPMAXUB x, Y4, Y4; \
	VMOVDQU ·byLowHalf+0(SB), Y3; \
	VPSHUFB Y0, Y3, Y3; \
	VPCMPEQB Y4, Y3, Y3; \
	VPMOVMSKB Y3, mk; \
	VMOVDQU ·byLowHalf+32(SB), Y4; \
	VPSHUFB Y0, Y4, Y4; \
	VPCMPEQB x, Y4, Y4; \
	VPMOVMSKB Y4, lead; \
	VPCMPEQB first-48(SP), x, Y0; \
	VPOR    Y0, Y8, Y8

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
TEXT ·avx2Blocks(SB), NOSPLIT, $48-56
	// BX counts the blocks from -n up to 0, the masks' pointers at
	// their ends (one add and a branch a block).
	MOVQ    p+0(FP), SI
	MOVQ    n+8(FP), BX
	MOVQ    letter+16(FP), R8
	LEAQ    (R8)(BX*8), R8
	MOVQ    special+24(FP), R9
	LEAQ    (R9)(BX*8), R9
	MOVQ    anchor+32(FP), R10
	LEAQ    (R10)(BX*8), R10
	NEGQ    BX
	MOVQ    sum+40(FP), AX
	MOVQ    quick+48(FP), R12
	MOVQ    chunkSum_top(AX), R11
	XORQ    R13, R13
	MOVQ    chunkSum_special(AX), CX
	MOVQ    CX, specials-8(SP)
	MOVQ    chunkSum_words(AX), CX
	MOVQ    CX, words-16(SP)
	VPBROADCASTB chunkSum_first(AX), Y0
	VMOVDQU Y0, first-48(SP)

	VMOVDQU ·slotTables+0(SB), Y9
	VMOVDQU ·slotTables+32(SB), Y10
	VMOVDQU ·slotTables+64(SB), Y11
	VMOVDQU ·slotTables+96(SB), Y12
	VMOVDQU ·slotTables+128(SB), Y13
	VMOVDQU ·slotByIndex+0(SB), Y2
	VMOVDQU ·slotByIndex+32(SB), Y15
	VMOVDQU nl<>(SB), Y14
	VPXOR   Y8, Y8, Y8

	// The first block's first 32 bytes, their slots and letters.
	VMOVDQU (SI), Y6
	SLOTS(Y6, Y7)
	NONZERO(Y7, DX)

loop:
	// The line 32 blocks on, asked for now: with the hardware
	// prefetcher alone the kernel was ~10 µs a MiB slower, on a text in
	// cache (a megabyte is twice L2) or in memory (the runtime copies a
	// megabyte or more with non-temporal stores, as a decoded result
	// may be). BENCHMARKS.md, stop 56 (s56-g). A prefetch past the text
	// does not fault.
	PREFETCHT0 2048(SI)

	// The block's second 32 bytes: slots, the block's letters (l,
	// stored), its word starts (DX) and their count, the top bit.
	VMOVDQU 32(SI), Y1
	SLOTS(Y1, Y5)
	NONZERO(Y5, AX)
	SHLQ    $32, AX
	ORQ     DX, AX
	MOVQ    AX, (R8)(BX*8)
	LEAQ    (R11)(AX*2), DX
	ANDNQ   AX, DX, DX
	MOVQ    AX, R11
	SHRQ    $63, R11
	POPCNTQ DX, CX
	ADDQ    CX, words-16(SP)

	// The first 32 bytes' anchors at word starts (stored: the low
	// half, the high half zero).
	ANCHORS(Y7, Y5, AX)
	ANDQ    DX, AX
	MOVQ    AX, (R10)(BX*8)

	// The first 32 bytes' lead and markup bytes (lead AX, markup CX).
	MARKS(Y6, 1(SI), AX, CX)

	// The next block's first 32 bytes and their slots (carried), the
	// second 32 bytes' anchors with them.
	VMOVDQU 64(SI), Y6
	SLOTS(Y6, Y7)
	ANCHORS(Y5, Y7, DI)
	// The block's anchors (stored), and whether there are any: the
	// carry NEGQ sets when they are not 0 goes in at R13's top (RCRQ),
	// a bit a block, block b of n at bit 64-n+b after the loop.
	SHLQ    $32, DI
	ANDQ    DX, DI
	ORQ     (R10)(BX*8), DI
	MOVQ    DI, (R10)(BX*8)
	NEGQ    DI
	RCRQ    $1, R13
	NONZERO(Y7, DX)

	// The second 32 bytes' lead and markup bytes, with the first's;
	// the block's special bytes.
	MARKS(Y1, 33(SI), DI, R14)
	SHLQ    $32, DI
	ORQ     DI, AX
	SHLQ    $32, R14
	ORQ     R14, CX
	MARKUPQ(AX, CX, markuploop, markupdone)
	MOVQ    AX, (R9)(BX*8)
	ORQ     AX, specials-8(SP)

	ADDQ    $64, SI
	INCQ    BX
	JNZ     loop

	// anchored: block b at bit b (a shift by 64-n, 0 when n is 64:
	// the count is taken mod 64), or'ed into the sum's.
	MOVQ    n+8(FP), CX
	NEGQ    CX
	SHRQ    CX, R13
	MOVQ    sum+40(FP), AX
	MOVQ    R11, chunkSum_top(AX)
	ORQ     R13, chunkSum_anchored(AX)
	MOVQ    specials-8(SP), CX
	MOVQ    CX, chunkSum_special(AX)
	MOVQ    words-16(SP), CX
	MOVQ    CX, chunkSum_words(AX)
	VPMOVMSKB Y8, CX
	ORQ     CX, chunkSum_firstAt(AX)
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
