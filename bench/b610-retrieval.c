/*
 * b610-retrieval.c — retrieval quality on the labelled set of
 * bench/retrieval/: every memory saved as memory_remember saves it (the
 * passage "# <label>\n\n<content>", embedded by the model in effect),
 * every query searched as memory_recall searches (the BGE query prefix,
 * limit 10) by vector only, lexical only and hybrid, and recall@1,
 * recall@5 and MRR@10 printed per mode, for all queries and for the two
 * kinds (exact: the query hinges on an identifier, path or code;
 * paraphrase: it names none of the memory's words).
 *
 * recall@k is the share of a query's relevant memories among its first k
 * hits, averaged over queries; MRR the mean of 1 / the rank of the first
 * relevant hit (0 when none is in the first 10).
 *
 * usage: b610-retrieval MEMORIES.jsonl QUERIES.jsonl
 * (THATCH_MODEL picks the model, as for every command.)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "bench.h"
#include "core/slug.h"
#include "core/store/store.h"
#include "embed/model.h"
#include "util/err.h"
#include "util/path.h"
#include "util/xmalloc.h"

#define LIMIT	10
#define BATCH	32

enum { KIND_ALL, KIND_EXACT, KIND_PARAPHRASE, NKINDS };
static const char *const kind_names[NKINDS] = { "all", "exact",
    "paraphrase" };
static const struct {
	const char	*name;
	enum store_mode	 mode;
} modes[] = {
	{ "vector", STORE_VECTOR },
	{ "lexical", STORE_LEXICAL },
	{ "hybrid", STORE_HYBRID },
};
#define NMODES	(sizeof(modes) / sizeof(modes[0]))

struct score {
	double	r1, r5, rr;
	int	n;
};

static json_t *
load_lines(const char *path)
{
	json_t		*arr = json_array(), *o;
	json_error_t	 e;
	char		 line[8192];
	FILE		*fp = fopen(path, "r");

	if (fp == NULL) {
		perror(path);
		exit(1);
	}
	while (fgets(line, sizeof(line), fp) != NULL) {
		if ((o = json_loads(line, 0, &e)) == NULL) {
			fprintf(stderr, "%s:%d: %s\n", path, e.line, e.text);
			exit(1);
		}
		json_array_append_new(arr, o);
	}
	fclose(fp);
	return arr;
}

static const char *
str(const json_t *o, const char *key)
{
	return json_string_value(json_object_get(o, key));
}

/* The slug memory_remember gives label. */
static char *
slug_of(const char *label)
{
	return slug_make(label, strlen(label));
}

/* Embed and save every memory into store "bench", BATCH at a time. */
static int
save_memories(struct store *st, struct model *m, const json_t *mems)
{
	struct store_write	 w = { 0 };
	enum store_write_result	 res;
	struct err		 err;
	char			*texts[BATCH], *slug;
	float			*v;
	size_t			 i, j, n, dim = (size_t)model_dim(m);

	v = xcalloc(BATCH * dim, sizeof(*v));
	w.store = "bench";
	w.dim = (int)dim;
	w.model = model_tag(m);
	w.archived = -1;
	w.now = "2026-01-01T00:00:00.000Z";
	for (i = 0; i < json_array_size(mems); i += n) {
		n = json_array_size(mems) - i < BATCH ?
		    json_array_size(mems) - i : BATCH;
		for (j = 0; j < n; j++)
			texts[j] = xasprintf("# %s\n\n%s",
			    str(json_array_get(mems, i + j), "label"),
			    str(json_array_get(mems, i + j), "content"));
		if (model_embed_batch(m, (const char *const *)texts, n,
		    EMBED_PASSAGE, v, &err) != 0) {
			fprintf(stderr, "b610-retrieval: %s\n", err.msg);
			return -1;
		}
		for (j = 0; j < n; j++) {
			w.label = str(json_array_get(mems, i + j), "label");
			w.slug = slug = slug_of(w.label);
			w.content = texts[j];
			w.vec = v + j * dim;
			if (store_remember(st, &w, &res, &err) != 0 ||
			    res != STORE_SAVED) {
				fprintf(stderr, "b610-retrieval: %s: %s\n",
				    w.label, res != STORE_SAVED ?
				    "duplicate label" : err.msg);
				return -1;
			}
			free(slug);
			free(texts[j]);
		}
	}
	free(v);
	return 0;
}

/* Score one query's hits against its relevant labels. */
static void
score_hits(const struct store_hits *hits, const json_t *relevant,
    struct score *s)
{
	size_t	i, k, found1 = 0, found5 = 0, nrel = json_array_size(relevant);
	double	rr = 0;
	char	*slug;

	for (k = 0; k < nrel; k++) {
		slug = slug_of(json_string_value(json_array_get(relevant, k)));
		for (i = 0; i < hits->n; i++) {
			if (strcmp(hits->v[i].e.slug, slug) != 0)
				continue;
			found1 += i < 1;
			found5 += i < 5;
			if (rr < 1.0 / (double)(i + 1))
				rr = 1.0 / (double)(i + 1);
		}
		free(slug);
	}
	s->r1 += (double)found1 / (double)nrel;
	s->r5 += (double)found5 / (double)nrel;
	s->rr += rr;
	s->n++;
}

int
main(int argc, char **argv)
{
	struct score		 sc[NMODES][NKINDS];
	struct model_opts	 o;
	struct paths		 p;
	struct model		*m;
	struct store		*st;
	struct store_hits	 hits = { NULL, 0 };
	struct store_query	 q;
	struct err		 err;
	const char		*stores[] = { "bench" };
	char			 dir[] = "/tmp/thatch-b600.XXXXXX", *db;
	json_t			*mems, *queries, *qo;
	float			*v;
	size_t			 i, md;
	int			 kind, dim;

	if (argc != 3)
		return 2;
	mems = load_lines(argv[1]);
	queries = load_lines(argv[2]);
	paths_init(&p);
	model_opts_init(&o, &p);
	if (model_open(&o, &m, &err) != 0) {
		fprintf(stderr, "b610-retrieval: %s\n", err.msg);
		return 1;
	}
	if (mkdtemp(dir) == NULL)
		return 1;
	db = xasprintf("%s/thatch.db", dir);
	if (store_open(db, &st, &err) != 0 ||
	    save_memories(st, m, mems) != 0)
		return 1;
	dim = model_dim(m);
	v = xcalloc((size_t)dim, sizeof(*v));
	memset(sc, 0, sizeof(sc));
	for (i = 0; i < json_array_size(queries); i++) {
		qo = json_array_get(queries, i);
		kind = strcmp(str(qo, "kind"), "exact") == 0 ? KIND_EXACT :
		    KIND_PARAPHRASE;
		if (model_embed(m, str(qo, "query"), strlen(str(qo, "query")),
		    EMBED_QUERY, v, &err) != 0)
			return 1;
		for (md = 0; md < NMODES; md++) {
			memset(&q, 0, sizeof(q));
			q.stores = stores;
			q.nstores = 1;
			q.vec = v;
			q.dim = dim;
			q.limit = LIMIT;
			q.min_score = -2;
			q.text = str(qo, "query");
			q.mode = modes[md].mode;
			if (store_search(st, &q, &hits, &err) != 0) {
				fprintf(stderr, "b610-retrieval: %s\n",
				    err.msg);
				return 1;
			}
			score_hits(&hits, json_object_get(qo, "relevant"),
			    &sc[md][KIND_ALL]);
			score_hits(&hits, json_object_get(qo, "relevant"),
			    &sc[md][kind]);
			store_hits_release(&hits);
		}
	}
	printf("model %s (%d dimensions): %zu memories, %d queries "
	    "(%d exact, %d paraphrase)\n", model_tag(m), dim,
	    json_array_size(mems), sc[0][KIND_ALL].n, sc[0][KIND_EXACT].n,
	    sc[0][KIND_PARAPHRASE].n);
	printf("%-11s %-8s %9s %9s %7s\n", "queries", "mode", "recall@1",
	    "recall@5", "MRR");
	for (kind = 0; kind < NKINDS; kind++)
		for (md = 0; md < NMODES; md++)
			printf("%-11s %-8s %9.3f %9.3f %7.3f\n",
			    kind_names[kind], modes[md].name,
			    sc[md][kind].r1 / sc[md][kind].n,
			    sc[md][kind].r5 / sc[md][kind].n,
			    sc[md][kind].rr / sc[md][kind].n);
	store_close(st);
	unlink(db);
	free(db);
	rmdir(dir);
	free(v);
	model_close(m);
	model_opts_release(&o);
	paths_release(&p);
	json_decref(mems);
	json_decref(queries);
	return 0;
}
