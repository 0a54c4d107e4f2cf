/*
 * predict.c — the prediction engine: what this user tends to want, graded
 * only by the user's reactions (engines-and-extras §A1). An instance of
 * the engine (engine.h); all it adds is the descriptor and
 * prediction_query.
 *
 *  1. prediction_query uses the fixed ENGINE_THRESHOLD and returns every
 *     deduplicated item; only the auto-fire caps at ENGINE_LIMIT (§A11.4-5).
 */
#include "core/engine/predict.h"

#include "util/sbuf.h"

const struct engine predict_engine = {
	.matchers = "prediction_matchers",
	.items = "predictions",
	.edges = "prediction_edges",
	.provenance = "prediction_provenance",
	.fk = "prediction_id",
	.noun = "prediction",
	.plural = "predictions",
	.header = "[thatch] User decision model",
	/* deviation (§A7.2): both take a verb phrase, and name whose habit */
	.verb_new = "the user may prefer to",
	.verb_known = "the user tends to",
};

int
predict_query(struct store *st, const char *const *stores, size_t nstores,
    const float *vec, int dim, struct sbuf *out, struct err *err)
{
	struct engine_matchers	ms;
	struct engine_hits	hs = { NULL, 0 };
	size_t			i;
	int			rc = -1;

	if (engine_find_matchers(st, &predict_engine, stores, nstores, vec,
	    dim, ENGINE_LIMIT, &ms, err) != 0)
		return -1;
	engine_matchers_cut(&ms, ENGINE_THRESHOLD);
	if (engine_score_items(st, &predict_engine, &ms, &hs, err) != 0)
		goto out;
	if (hs.n == 0)
		sbuf_adds(out, "No matching predictions found.");
	for (i = 0; i < hs.n; i++) {
		if (i > 0)
			sbuf_addc(out, '\n');
		engine_render_hit(&predict_engine, &hs.v[i], out);
	}
	rc = 0;
out:
	engine_hits_release(&hs);
	engine_matchers_release(&ms);
	return rc;
}
