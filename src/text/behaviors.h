/* behaviors.h — the default behaviors seeded into "global" (behaviors.c). */
#ifndef THATCH_TEXT_BEHAVIORS_H
#define THATCH_TEXT_BEHAVIORS_H

#include <stddef.h>

/*
 * One starter rule (engines-and-extras §A9): key is the stable seed-key
 * stamp; situation becomes the matcher, behavior the item, rationale the
 * item's rationale before the stamp. All string literals.
 */
struct text_behavior {
	const char	*key;
	const char	*situation;
	const char	*behavior;
	const char	*rationale;
};

/* The defaults in seeding order, and how many there are. */
extern const struct text_behavior text_behaviors[];
extern const size_t text_behaviors_count;

#endif
