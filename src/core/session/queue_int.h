/*
 * queue_int.h — what the queue's files share and no other file may use:
 * the clip of a record (queue_clip.c) and the making and reading of one
 * (queue_record.c). Users: queue.c, queue_clip.c, queue_record.c.
 */
#ifndef THATCH_CORE_QUEUE_INT_H
#define THATCH_CORE_QUEUE_INT_H

#include <jansson.h>

struct queue_call;

/*
 * Cut rec to what a stored record may hold (queue_clip.c invariant 2): a
 * string output over QUEUE_OUTPUT_MAX units to QUEUE_OUTPUT_MAX and
 * "...", every string inside args to QUEUE_ARG_MAX and "...".
 */
void	queue_clip_record(json_t *rec);

/* The record of §4.2 for call c of session sid, keys in order, clipped
 * (queue_clip_record). New reference. */
json_t	*queue_record_new(const char *sid, const struct queue_call *c);

/* One interaction of the payload (§4.7) from one stored record: tool,
 * title, the summarized args and the output cut, then the files it read
 * or edited (queue_files; absent when none). New reference. */
json_t	*queue_record_interaction(const json_t *rec, const char *base,
	    const char *root);

#endif
