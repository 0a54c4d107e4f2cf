/*
 * behavior.c — the behavior engine: situational rules the agent sets for
 * itself, graded by its own relevance judgment (engines-and-extras §A1),
 * and the seeding of the default rules (§A9). An instance of the engine
 * (engine.h).
 *
 *  1. Defaults are found by their seed-key stamp, never by cosine, so a
 *     user's similar rule is never mistaken for one (§A9 rules).
 *  2. deviation (§A9, open question 2): seed-version is a hash of the
 *     default's texts, not the program version, so a release keeps what
 *     the defaults learned unless their wording changed.
 *  3. deviation (§A9 [PROPOSED]): stamps are checked before anything is
 *     embedded, and re-checked inside each default's transaction.
 *  4. deviation (issue 15): a default stamped by another program (the
 *     original stamps its program version, "0.1.30", never 12 hex
 *     digits) is that default, present: thatch neither deletes nor
 *     re-seeds it, nor adds its own beside it. The original replaces
 *     thatch's stamps on its start, so once it has run, both share its
 *     nine rows and what they learn.
 */
#include "core/engine/behavior.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


#include "text/behaviors.h"
#include "util/os/clock.h"
#include "util/err.h"
#include "util/sha256.h"
#include "util/log.h"
#include "util/xmalloc.h"

const struct engine behavior_engine = {
	.matchers = "behavior_matchers",
	.items = "behaviors",
	.edges = "behavior_edges",
	.provenance = "behavior_provenance",
	.fk = "behavior_id",
	.noun = "behavior",
	.plural = "behaviors",
	.header = "[thatch] Situational behaviors",
	/* deviation (§A7.2): both take an imperative ("run the linter") */
	.verb_new = "consider whether to",
	.verb_known = "do",
};

#define SEED_STORE	"global"
#define VERSION_HEX	12		/* 48 bits of SHA-256 */

/* The stamped rationale of d: "<rationale> seed-key:<k> seed-version:<v>". */
static char *
seed_rationale(const struct text_behavior *d)
{
	char	hex[SHA256_HEX_LEN], *text;

	text = xasprintf("%s\n%s\n%s", d->situation, d->behavior,
	    d->rationale);
	sha256_hex(text, strlen(text), hex);
	free(text);
	hex[VERSION_HEX] = '\0';
	return xasprintf("%s seed-key:%s seed-version:%s", d->rationale,
	    d->key, hex);
}

/* The token after the first "<tag>" in s (up to whitespace), or "". */
static size_t
stamp(const char *s, const char *tag, const char **tok)
{
	const char	*p = s != NULL ? strstr(s, tag) : NULL;

	if (p == NULL) {
		*tok = "";
		return 0;
	}
	*tok = p + strlen(tag);
	return strcspn(*tok, " \t\n\r\f\v");
}

static bool
stamp_is(const char *rationale, const char *tag, const char *want)
{
	const char	*tok;
	size_t		 n = stamp(rationale, tag, &tok);

	return n > 0 && n == strlen(want) && strncmp(tok, want, n) == 0;
}

/* Whether a stamp's seed-version is thatch's own hash (invariant 4). */
static bool
own_version(const char *rationale)
{
	const char	*tok;
	size_t		 n = stamp(rationale, "seed-version:", &tok);

	return n == VERSION_HEX && strspn(tok, "0123456789abcdef") >= n;
}

/*
 * The items stamped with key: the first of thatch's own in list order
 * (id and rationale), and whether another program's is among them.
 */
struct seed_find {
	const char	*key;
	char		*id, *rationale;	/* owned */
	bool		 foreign;
};

static int
find_visit(const struct engine_item *it, void *arg)
{
	struct seed_find	*f = arg;

	if (!stamp_is(it->rationale, "seed-key:", f->key))
		return 0;
	if (!own_version(it->rationale))
		f->foreign = true;
	else if (f->id == NULL) {
		f->id = xstrdup(it->id);
		f->rationale = xstrdup(it->rationale);
	}
	return 0;
}

static int
seed_find(struct store *st, const char *key, struct seed_find *f,
    struct err *err)
{
	memset(f, 0, sizeof(*f));
	f->key = key;
	return engine_each_item(st, &behavior_engine, SEED_STORE, find_visit,
	    f, err);
}

static void
seed_find_release(struct seed_find *f)
{
	free(f->id);
	free(f->rationale);
}

/* Whether d needs nothing: another program's or a current own stamp. */
static bool
seed_current(const struct seed_find *f, const char *want)
{
	const char	*tok;
	const char	*wtok;
	size_t		 n = stamp(f->rationale, "seed-version:", &tok);
	size_t		 wn = stamp(want, "seed-version:", &wtok);

	return f->foreign ||
	    (f->id != NULL && n == wn && strncmp(tok, wtok, n) == 0);
}

struct seed {
	struct store			*st;
	const struct text_behavior	*d;
	const struct behavior_embedder	*emb;
	const char			*rationale, *now;
	const float			*svec, *bvec;
	bool				 wrote;
};

/* Inside the transaction: replace d's stale item (§A9 steps 1-5). */
static int
seed_one(void *arg, struct err *err)
{
	struct seed		*s = arg;
	const struct engine	*eng = &behavior_engine;
	struct seed_find	 f;
	char			*mid = NULL, *iid = NULL;
	bool			 deleted;
	int			 rc = -1;

	if (seed_find(s->st, s->d->key, &f, err) != 0)
		return -1;
	if (seed_current(&f, s->rationale)) {
		rc = 0;
		goto out;
	}
	if (f.id != NULL &&
	    (engine_first_matcher(s->st, eng, f.id, &mid, err) != 0 ||
	    engine_delete_item(s->st, eng, f.id, &deleted, err) != 0))
		goto out;
	if (mid == NULL && engine_nearest_matcher(s->st, eng, SEED_STORE,
	    s->svec, s->emb->dim, ENGINE_DEDUP, &mid, err) != 0)
		goto out;
	if (mid == NULL && engine_create_matcher(s->st, eng, SEED_STORE,
	    s->d->situation, s->svec, s->emb->dim, s->emb->model, s->now, &mid,
	    err) != 0)
		goto out;
	if (engine_create_item(s->st, eng, SEED_STORE, s->d->behavior,
	    s->rationale, s->bvec, s->emb->dim, s->emb->model, s->now, &iid,
	    err) != 0 ||
	    engine_create_edge(s->st, eng, mid, iid, 1.0, s->now, err) != 0 ||
	    engine_add_provenance(s->st, eng, iid, "codify", s->rationale,
	    err) != 0)
		goto out;
	s->wrote = true;
	rc = 0;
out:
	seed_find_release(&f);
	free(mid);
	free(iid);
	return rc;
}

/* Embed d's texts, then write it in its own transaction. */
static int
seed_default(struct store *st, const struct text_behavior *d,
    const char *rationale, const struct behavior_embedder *emb,
    const struct clock *clk, bool *wrote, struct err *err)
{
	char		now[CLOCK_ISO_LEN];
	struct seed	s = { st, d, emb, rationale, now, NULL, NULL, false };
	float		*svec, *bvec;
	int		 rc = -1;

	s.svec = svec = xcalloc((size_t)emb->dim, sizeof(*svec));
	s.bvec = bvec = xcalloc((size_t)emb->dim, sizeof(*bvec));
	if (emb->embed(emb->arg, d->situation, svec, err) != 0 ||
	    emb->embed(emb->arg, d->behavior, bvec, err) != 0)
		goto out;
	clock_iso(clock_now(clk), now);
	rc = engine_txn(st, seed_one, &s, err);
	*wrote = s.wrote;
out:
	free(svec);
	free(bvec);
	return rc;
}

int
behavior_seed(struct store *st, const struct behavior_embedder *emb,
    const struct clock *clk, int *seeded, struct err *err)
{
	struct seed_find	 f;
	struct err		 e;
	char			*rationale;
	bool			 current, wrote = false;
	size_t			 i;
	int			 rc = 0, n = 0;

	for (i = 0; rc == 0 && i < text_behaviors_count; i++) {
		rationale = seed_rationale(&text_behaviors[i]);
		if ((rc = seed_find(st, text_behaviors[i].key, &f, err)) == 0) {
			current = seed_current(&f, rationale);
			seed_find_release(&f);
			if (!current && seed_default(st, &text_behaviors[i],
			    rationale, emb, clk, &wrote, &e) != 0)
				log_warn("seeding default behavior %s: %s",
				    text_behaviors[i].key, e.msg);
			else if (!current && wrote)
				n++;
		}
		free(rationale);
	}
	if (seeded != NULL)
		*seeded = n;
	return rc;
}
