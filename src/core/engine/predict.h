/* predict.h — the prediction engine: the user's decision model (predict.c). */
#ifndef THATCH_CORE_PREDICT_H
#define THATCH_CORE_PREDICT_H

#include <stddef.h>

#include "core/engine/engine.h"

struct err;
struct sbuf;
struct store;

/* The prediction_* tables and texts (engines-and-extras §A2, §A7.2). */
extern const struct engine predict_engine;

/*
 * §A8.2 prediction_query: append one line per item whose matcher in
 * stores has a rounded cosine >= ENGINE_THRESHOLD to vec (the context's
 * EMBED_QUERY embedding; the threshold variable does not apply), all of
 * them, best first, joined by "\n"; or "No matching predictions found.".
 */
int	predict_query(struct store *, const char *const *stores, size_t nstores,
	    const float *vec, int dim, struct sbuf *out, struct err *);

#endif
