/* Run-time choice of instruction set for the hot loops.
 *
 * A portable build (the default, and every wheel) compiles for the x86-64
 * baseline, which any 64-bit x86 CPU runs. The loops where wider vectors pay
 * are marked CG_HOT: gcc compiles each of them three times (baseline, x86-64-v3
 * = AVX2 + FMA, x86-64-v4 = AVX-512) and the dynamic loader picks one per
 * function when the library loads, from what the CPU reports. A build made with
 * CYGRAD_ARCH=native (or any -march) compiles everything for that CPU only and
 * leaves CG_HOT empty.
 *
 * The vector widths in reduce.c are fixed by their types, not by the variant,
 * so a sum adds in the same order on every variant; a variant with FMA may
 * round a fused multiply-add differently in the last bit. */
#ifndef CYGRAD_ISA_H
#define CYGRAD_ISA_H

#if defined(CG_DISPATCH) && defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__)
#define CG_HOT __attribute__((target_clones("default", "arch=x86-64-v3", "arch=x86-64-v4")))
#define CG_HAS_DISPATCH 1
#else
#define CG_HOT
#define CG_HAS_DISPATCH 0
#endif

/* Which variant the CG_HOT loops run on this CPU: 4 (x86-64-v4, AVX-512),
 * 3 (x86-64-v3, AVX2), 1 (baseline), or 0 when the build has no variants
 * (a -march build, or not gcc on x86-64). Same test as gcc's resolver. */
int cg_isa_variant(void);

#endif
