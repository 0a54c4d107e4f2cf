/* behavior.h — the behavior engine: the agent's own rules (behavior.c). */
#ifndef THATCH_CORE_BEHAVIOR_H
#define THATCH_CORE_BEHAVIOR_H

#include "core/engine/engine.h"

struct clock;
struct err;
struct store;

/* The behavior_* tables and texts (engines-and-extras §A2, §A7.2). */
extern const struct engine behavior_engine;

/* How seeding embeds a text as a passage: fill out[dim]. Borrowed. */
struct behavior_embedder {
	int		 (*embed)(void *arg, const char *text, float *out,
			    struct err *);
	void		*arg;
	int		 dim;
	const char	*model;		/* tag written beside the vectors */
};

/*
 * Seed the default behaviors (text/behaviors.h) into "global" (§A9). A
 * default whose stamped item (rationale "... seed-key:<key>
 * seed-version:<v>") carries the current version is left alone; checking
 * all of them is one SELECT and no embedding. Otherwise the old stamped
 * item is deleted and a fresh one created (counts 0/0) on its old
 * matcher, else the nearest matcher of "global" at ENGINE_DEDUP, else a
 * new one, with a "codify" provenance row. <v> is a hash of the
 * default's texts, so a release that does not change a default keeps
 * what it learned. Unstamped (user) behaviors are never touched, nor a
 * default another program stamped (a <v> that is not 12 hex digits, as
 * the original's "0.1.30"): that default is present as it is. Each
 * default is checked again and written in its own BEGIN IMMEDIATE
 * transaction, so two processes seeding at once create it once; a
 * failure is logged and seeding moves on. *seeded counts the defaults
 * written (may be NULL). Returns 0, or -1 when the stamps cannot be read.
 */
int	behavior_seed(struct store *, const struct behavior_embedder *,
	    const struct clock *, int *seeded, struct err *);

#endif
