/*
 * isa.c — which kernel family (plain C, AVX2, AVX-512, NEON) the embedding
 * engine's products and core's vector dots use: the best the CPU has,
 * chosen at run time, or the one THATCH_ISA forces so that every path can
 * be tested on one machine.
 *
 * Invariants:
 *  1. An ISA is available only when this build compiled its kernels
 *     (x86-64 for AVX2 and AVX-512, AArch64 for NEON) and the CPU reports
 *     it; generic always is. A forced ISA that is not is refused, never
 *     quietly replaced, so a test that asked for a path ran that path.
 *  2. NEON (Advanced SIMD) is part of every AArch64 CPU that Linux and
 *     macOS run on, so it needs no run-time probe.
 *  3. isa_current's cache holds an ISA that passed invariant 1; it is
 *     written by isa_select and read without a lock (an int, atomic).
 */
#include "util/isa.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "util/err.h"

static const char *const names[ISA_COUNT] = {
	[ISA_GENERIC] = "generic",
	[ISA_AVX2] = "avx2",
	[ISA_AVX512] = "avx512",
	[ISA_NEON] = "neon",
};

/* invariant 3: -1 until resolved */
static atomic_int	current = -1;

const char *
isa_name(enum isa isa)
{
	return isa >= 0 && isa < ISA_COUNT ? names[isa] : "?";
}

bool
isa_available(enum isa isa)
{
	switch (isa) {
	case ISA_GENERIC:
		return true;
#if defined(__x86_64__) && defined(__GNUC__)
	case ISA_AVX2:
		__builtin_cpu_init();
		return __builtin_cpu_supports("avx2") &&
		    __builtin_cpu_supports("fma");
	case ISA_AVX512:
		__builtin_cpu_init();
		return __builtin_cpu_supports("avx512f");
#endif
#if defined(__aarch64__)
	case ISA_NEON:
		return true;	/* invariant 2 */
#endif
	default:
		return false;
	}
}

enum isa
isa_best(void)
{
	int	i;

	for (i = ISA_COUNT - 1; i > ISA_GENERIC; i--)
		if (isa_available((enum isa)i))
			return (enum isa)i;
	return ISA_GENERIC;
}

/* THATCH_ISA's ISA, or isa_best() when unset; -1 with err when refused. */
static int
from_env(enum isa *out, struct err *err)
{
	const char	*v = getenv("THATCH_ISA");
	int		 i;

	if (v == NULL || *v == '\0') {
		*out = isa_best();
		return 0;
	}
	for (i = 0; i < ISA_COUNT; i++)
		if (strcmp(v, names[i]) == 0)
			break;
	if (i == ISA_COUNT)
		return err_set(err, "THATCH_ISA=%s: unknown instruction set "
		    "(use generic, avx2, avx512 or neon)", v);
	if (!isa_available((enum isa)i))
		return err_set(err, "THATCH_ISA=%s: this CPU or build cannot "
		    "run it (best here: %s)", v, names[isa_best()]);
	*out = (enum isa)i;
	return 0;
}

int
isa_select(enum isa *out, struct err *err)
{
	if (from_env(out, err) != 0)
		return -1;
	atomic_store(&current, (int)*out);
	return 0;
}

enum isa
isa_current(void)
{
	int		c = atomic_load_explicit(&current,
			    memory_order_relaxed);
	enum isa	isa;

	if (c >= 0)
		return (enum isa)c;
	if (from_env(&isa, NULL) != 0)
		isa = isa_best();
	atomic_store(&current, (int)isa);
	return isa;
}
