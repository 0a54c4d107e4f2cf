/* sync_review.h — whether an arriving memory reads as an order to the agent (sync_review.c). */
#ifndef THATCH_CORE_SYNC_REVIEW_H
#define THATCH_CORE_SYNC_REVIEW_H

/* The compiled rules of docs/sync.md "Review". Opaque. */
struct sync_review;

struct sync_review *sync_review_new(void);
void	sync_review_free(struct sync_review *);	/* accepts NULL */

/*
 * Why text reads as an instruction to the agent ("it runs code fetched
 * from the network", ...), or NULL when it reads as a note. Static
 * string; NULL text is a note.
 */
const char *sync_review_find(const struct sync_review *, const char *text);

#endif
