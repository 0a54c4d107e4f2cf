/*
 * engine.h — the scoring engine of predictions and behaviors: its rows
 * (engine.c), ranking (engine_match.c), what the tools do (engine_ops.c)
 * and how an item reads (engine_text.c).
 */
#ifndef THATCH_CORE_ENGINE_H
#define THATCH_CORE_ENGINE_H

#include <stdbool.h>
#include <stddef.h>

struct err;
struct sbuf;
struct store;

/*
 * One engine, two instances (engines-and-extras §A1-§A2): predict_engine
 * (predict.h) and behavior_engine (behavior.h). A descriptor names the
 * engine's four tables and the words its texts use; every function below
 * takes one and runs the same code for both.
 */
struct engine {
	const char	*matchers;	/* tables: compile-time constants */
	const char	*items;
	const char	*edges;
	const char	*provenance;
	const char	*fk;		/* item column of edges, provenance */
	const char	*noun;		/* "prediction": not-found, delete */
	const char	*plural;	/* "predictions": the empty-list line */
	const char	*header;	/* first line of the auto-fire block */
	const char	*verb_new;	/* evidence 0 ("the user may prefer to") */
	const char	*verb_known;	/* evidence >= 1 ("the user tends to") */
};

/* §A4: confidence = (c + K*P0) / (c + d + K); soft is a quarter disconfirm. */
#define ENGINE_K		5.0
#define ENGINE_P0		0.5
#define ENGINE_W_SOFT		0.25
/* §A6: creation-time dedup and the semantic lookup of delete/feedback. */
#define ENGINE_DEDUP		0.85
/* §A7.1: default auto-fire threshold; prediction_query's fixed one. */
#define ENGINE_THRESHOLD	0.60
/* §A3: matchers below this raw cosine are noise; results per nudge. */
#define ENGINE_FLOOR		0.01
#define ENGINE_LIMIT		5

enum engine_signal {
	ENGINE_NEUTRAL,		/* create / codify: no change */
	ENGINE_CONFIRM,
	ENGINE_DISCONFIRM,
	ENGINE_SOFT,
};

/* "confirm", "disconfirm", "soft" (ENGINE_NEUTRAL gives "create"). */
const char *engine_signal_name(enum engine_signal);

/* ---- rows ------------------------------------------------------------- */

/* A matcher ranked against a query: score is round3(cosine). Owned strings. */
struct engine_matcher {
	char	*id, *description;
	double	 score;
};

struct engine_matchers {
	struct engine_matcher	*v;	/* owned */
	size_t			 n;
};

void	engine_matchers_release(struct engine_matchers *);

/*
 * One scored item (§A3 score_items): confidence is round3(raw), score
 * round3(matcher score x weight x raw confidence), evidence
 * round(c + d). Owned strings (rationale may be NULL).
 */
struct engine_hit {
	char	*matcher_id, *matcher_description;
	char	*item_id, *statement, *rationale;
	double	 confidence, score;
	long	 evidence;
};

struct engine_hits {
	struct engine_hit	*v;	/* owned */
	size_t			 n;
};

void	engine_hits_release(struct engine_hits *);

/* An item as stored: raw confidence and counts. Owned strings. */
struct engine_item {
	char	*id, *store, *statement, *rationale;
	double	 confidence, confirms, disconfirms;
};

void	engine_item_release(struct engine_item *);

/* ---- auto-fire: the one entry point of every host path ----------------- */

/*
 * §A3 score_nudge: the top ENGINE_LIMIT matchers of stores by rounded
 * cosine to vec (rows of another dimension skipped), those whose rounded
 * score is >= threshold, their items scored and deduplicated, at most
 * ENGINE_LIMIT of them, best first. Empty is not an error.
 */
int	engine_score_nudge(struct store *, const struct engine *,
	    const char *const *stores, size_t nstores, const float *vec,
	    int dim, double threshold, struct engine_hits *, struct err *);

/*
 * Append the auto-fire block of hits (§A7.2) to out: the engine's header,
 * then one "- [0.58 conf, 1 test] When <matcher>: <verb> <statement>"
 * line per hit, joined by "\n", no trailing newline. Only the
 * confidence, evidence, matcher_description and statement fields are
 * read, so a host may fill them from a sideband reply. Nothing is
 * appended when n is 0.
 */
void	engine_render_nudge(const struct engine *, const struct engine_hit *,
	    size_t n, struct sbuf *out);

/*
 * engine_score_nudge then engine_render_nudge: the complete block for a
 * query vector (the prompt's EMBED_QUERY embedding), or nothing appended
 * when nothing fires.
 */
int	engine_nudge(struct store *, const struct engine *,
	    const char *const *stores, size_t nstores, const float *vec,
	    int dim, double threshold, struct sbuf *out, struct err *);

/* ---- the parts of a nudge, for tools and tests ------------------------- */

/* §A3 find_matchers: at most limit, best first (ties in rowid order). */
int	engine_find_matchers(struct store *, const struct engine *,
	    const char *const *stores, size_t nstores, const float *vec,
	    int dim, size_t limit, struct engine_matchers *, struct err *);

/*
 * Drop the matchers whose rounded score is below threshold (§A7.1: the
 * threshold gates the matcher, never the item's score). A NaN threshold
 * drops them all.
 */
void	engine_matchers_cut(struct engine_matchers *, double threshold);

/* §A3 score_items over ranked matchers: every item once, best first. */
int	engine_score_items(struct store *, const struct engine *,
	    const struct engine_matchers *, struct engine_hits *,
	    struct err *);

/*
 * Append one "[conf, n tests] When <matcher>: <verb> <statement>" line
 * (no dash, no newline): the line of prediction_query and of the block,
 * the matcher and statement shaped to read as one sentence however they
 * were written (engine_text.c).
 */
void	engine_render_hit(const struct engine *, const struct engine_hit *,
	    struct sbuf *out);

/* Append "[<fmt2 confidence> conf, <n> test(s)]", the count agreeing. */
void	engine_render_evidence(double confidence, long evidence,
	    struct sbuf *out);

/* ---- building blocks (§A3) --------------------------------------------- */

/*
 * The row of store with the highest raw cosine >= threshold to vec (the
 * first scanned wins ties). *id is a new string, or NULL when none
 * qualifies, which is not an error.
 */
int	engine_nearest_matcher(struct store *, const struct engine *,
	    const char *store, const float *vec, int dim, double threshold,
	    char **id, struct err *);

/* The same over items; *found false when none qualifies. */
int	engine_nearest_item(struct store *, const struct engine *,
	    const char *store, const float *vec, int dim, double threshold,
	    struct engine_item *, bool *found, struct err *);

/*
 * Insert a matcher (an item) into store, creating the stores row first;
 * vec may be NULL (no embedding). now is the ISO time with milliseconds
 * for created_at and updated_at. *id is a new UUID v4 string.
 */
int	engine_create_matcher(struct store *, const struct engine *,
	    const char *store, const char *description, const float *vec,
	    int dim, const char *model, const char *now, char **id,
	    struct err *);
int	engine_create_item(struct store *, const struct engine *,
	    const char *store, const char *statement, const char *rationale,
	    const float *vec, int dim, const char *model, const char *now,
	    char **id, struct err *);

/* Link a matcher to an item; an existing edge keeps its weight (§A5). */
int	engine_create_edge(struct store *, const struct engine *,
	    const char *matcher_id, const char *item_id, double weight,
	    const char *now, struct err *);

/* §A4 in one UPDATE; ENGINE_NEUTRAL and unknown ids change nothing. */
int	engine_adjust(struct store *, const struct engine *,
	    const char *item_id, enum engine_signal, const char *now,
	    struct err *);

/* One provenance row (signal is "create", "codify", "confirm", ...). */
int	engine_add_provenance(struct store *, const struct engine *,
	    const char *item_id, const char *signal, const char *detail,
	    struct err *);

/* The item by id; *found false when there is none. */
int	engine_get_item(struct store *, const struct engine *, const char *id,
	    struct engine_item *, bool *found, struct err *);

/*
 * Call fn for each item of store in list order (§A3 list_items:
 * confidence descending, then rowid). fn returning non-zero stops the
 * walk. The item is borrowed for the call.
 */
int	engine_each_item(struct store *, const struct engine *,
	    const char *store, int (*fn)(const struct engine_item *, void *),
	    void *, struct err *);

/* The matcher of item_id's oldest edge; *id NULL when it has none. */
int	engine_first_matcher(struct store *, const struct engine *,
	    const char *item_id, char **id, struct err *);

/* Delete an item; edges and provenance cascade, matchers stay. */
int	engine_delete_item(struct store *, const struct engine *,
	    const char *id, bool *deleted, struct err *);

/*
 * Run fn(arg, err) inside BEGIN IMMEDIATE: COMMIT when it returns 0, else
 * ROLLBACK and return -1 with fn's error.
 */
int	engine_txn(struct store *, int (*fn)(void *, struct err *), void *,
	    struct err *);

/* ---- what the tools do (§A8), each in one transaction ------------------ */

/* A prediction_update or behavior_codify call, embeddings made. Borrowed. */
struct engine_write {
	const char		*store;
	const char		*situation;	/* the matcher text */
	const float		*situation_vec;
	const char		*statement;
	const float		*statement_vec;
	int			 dim;
	const char		*model;
	const char		*rationale;
	enum engine_signal	 signal;
	const char		*neutral;	/* "create" or "codify" */
	const char		*now;
};

enum engine_outcome {
	ENGINE_CREATED,		/* new item */
	ENGINE_LINKED,		/* existing item, neutral signal */
	ENGINE_GRADED,		/* existing item, signal applied */
};

/*
 * §A8.3 / §A8.6: matcher dedup at ENGINE_DEDUP in store (else create),
 * item dedup likewise (else create with the rationale), edge weight 1,
 * the signal applied (also to a new item), provenance recorded with the
 * signal's name (or w->neutral) and the rationale. *item is the item
 * after the write.
 */
int	engine_record(struct store *, const struct engine *,
	    const struct engine_write *, enum engine_outcome *,
	    struct engine_item *, struct err *);

/*
 * §A8.7 steps 1-3: the item nearest vec at ENGINE_DEDUP in store gets the
 * signal and a provenance row with detail, in one transaction. *found
 * false (nothing changed) when no item qualifies; else *item is re-read.
 */
int	engine_grade(struct store *, const struct engine *, const char *store,
	    const float *vec, int dim, enum engine_signal, const char *detail,
	    const char *now, struct engine_item *, bool *found, struct err *);

/*
 * §A8.5 prediction_delete / behavior_delete: append the tool's reply for
 * deleting the item of store nearest vec (the "statement" argument's
 * passage embedding) to out.
 */
int	engine_forget(struct store *, const struct engine *, const char *store,
	    const char *statement, const float *vec, int dim, struct sbuf *out,
	    struct err *);

/* §A8.4: append the list of store's items, or the empty line, to out. */
int	engine_list(struct store *, const struct engine *, const char *store,
	    struct sbuf *out, struct err *);

/*
 * Append the reply of engine_record (§A8.3, §A8.6): "[<created>] <store>
 * :: "<statement>" for "<situation>"" for a new item with no signal
 * (created is "created" or "codified"), else "[created + <signal>]",
 * "[linked]" or "[<signal>]" lines ending in " confidence=<raw, two
 * decimals> (<C>/<D>)".
 */
void	engine_render_record(const struct engine_write *, enum engine_outcome,
	    const struct engine_item *, const char *created, struct sbuf *out);

/* Append "[<signal>] "<statement>" confidence=... (C/D)" (§A8.7 step 3). */
void	engine_render_graded(enum engine_signal, const struct engine_item *,
	    struct sbuf *out);

#endif
