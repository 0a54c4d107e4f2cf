/*
 * isa.h — the instruction set the numeric kernels use (isa.c): the best
 * this CPU has, or the one THATCH_ISA names.
 */
#ifndef THATCH_UTIL_ISA_H
#define THATCH_UTIL_ISA_H

#include <stdbool.h>

struct err;

/* Kernel families, in the order THATCH_ISA's names are listed. */
enum isa {
	ISA_GENERIC,		/* plain C, any CPU */
	ISA_AVX2,		/* x86-64 AVX2 with FMA */
	ISA_AVX512,		/* x86-64 AVX-512F */
	ISA_NEON,		/* AArch64 Advanced SIMD */
	ISA_COUNT
};

/* THATCH_ISA's spelling of isa: "generic", "avx2", "avx512", "neon". */
const char	*isa_name(enum isa);

/* Whether this build has isa's kernels and this CPU can run them. */
bool		 isa_available(enum isa);

/* The widest available ISA. */
enum isa	 isa_best(void);

/*
 * The ISA in effect: THATCH_ISA's (read now) when set and not empty,
 * else isa_best(). An unknown name, or a known ISA not available here, is
 * refused: -1 with one line in err. On success it also becomes
 * isa_current()'s answer.
 */
int		 isa_select(enum isa *, struct err *);

/*
 * The ISA in effect for kernels that have no error path (core/vector.c):
 * the last isa_select's, or, before any, THATCH_ISA's when it is valid
 * and isa_best() otherwise. Cheap: resolved once.
 */
enum isa	 isa_current(void);

#endif
