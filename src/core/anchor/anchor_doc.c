/*
 * anchor_doc.c — a memory's anchors as they travel with it: the JSON array
 * that `thatch export` writes in a memory record and in a memory
 * document's front matter, and that `thatch import` and `thatch sync`
 * record again on the other side.
 *
 *  1. What travels is what was recorded: the spec as given and the
 *     fingerprints taken when the memory was written (git's blob ids, the
 *     commit then), never a fingerprint of the receiving worktree, so a
 *     teammate's memory about code this clone has since changed is judged
 *     drifted here too.
 *  2. The same rows give the same text (keys in one order, compact), so a
 *     synced document's blob id changes only when its anchors do.
 *  3. What arrives is held to what memory_remember could have recorded
 *     (anchor_doc_check) before a row is written.
 */
#include "core/anchor/anchor.h"

#include <stdlib.h>
#include <string.h>

#include "core/anchor/anchor_int.h"
#include "core/store/store.h"
#include "util/err.h"
#include "util/gitoid.h"
#include "util/jsonx.h"
#include "util/xmalloc.h"

/* The keys of one anchor in the order they are written (invariant 2). */
static const char *const doc_keys[] = {
	"spec", "blob", "span", "head", "recorded_at",
};
#define NKEYS	(sizeof(doc_keys) / sizeof(doc_keys[0]))

/* The fields of a in doc_keys[] order. */
static void
fields(const struct anchor *a, const char *v[NKEYS])
{
	v[0] = a->spec, v[1] = a->blob, v[2] = a->span, v[3] = a->head;
	v[4] = a->recorded_at;
}

char *
anchor_doc_get(struct store *st, const char *store, const char *slug)
{
	struct anchors	 as;
	const char	*v[NKEYS];
	json_t		*arr, *o, *s;
	char		*text = NULL;
	size_t		 i, k;

	if (anchor_get(st, store, slug, &as, NULL) != 0 || as.n == 0)
		return NULL;
	arr = json_array();
	for (i = 0; i < as.n; i++) {
		fields(&as.v[i], v);
		o = json_object();
		for (k = 0; k < NKEYS; k++)
			/* json_string refuses text that is not UTF-8: such a
			 * field stays home, and the check below drops the
			 * anchor if it was one that must travel */
			if (v[k] != NULL && (s = json_string(v[k])) != NULL)
				json_object_set_new(o, doc_keys[k], s);
		if (json_object_get(o, "spec") != NULL &&
		    json_object_get(o, "recorded_at") != NULL)
			json_array_append(arr, o);
		json_decref(o);
	}
	if (json_array_size(arr) > 0)
		text = jsonx_dump(arr, 0);
	json_decref(arr);
	anchors_release(&as);
	return text;
}

/* A fingerprint field: absent, null or a git id. */
static bool
oid_ok(const json_t *o, const char *key)
{
	const json_t	*v = json_object_get(o, key);

	return v == NULL || json_is_null(v) ||
	    (json_is_string(v) && gitoid_ok(json_string_value(v)));
}

/* "2026-12-06T10:00:00.000Z"-shaped: digits and the time's punctuation. */
static bool
time_ok(const char *s)
{
	size_t	n = s != NULL ? strlen(s) : 0;

	return n >= 10 && n <= 40 && strspn(s, "0123456789-:.TZ+") == n;
}

static const char *
check_one(const json_t *o)
{
	const char	*spec = jsonx_str(o, "spec");
	char		*path, *symbol;
	struct err	 err;
	const char	*p;
	int		 bad;

	if (!json_is_object(o) || spec == NULL)
		return "an anchor is not an object with a spec";
	if (strlen(spec) > ANCHOR_SPEC_MAX ||
	    strlen(spec) != json_string_length(json_object_get(o, "spec")))
		return "an anchor's spec is too long";
	for (p = spec; *p != '\0'; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			return "an anchor's spec holds a control character";
	bad = anchor_parse(spec, &path, &symbol, &err);
	free(path);
	free(symbol);
	if (bad != 0)
		return "an anchor's path is not inside the repository";
	if (!oid_ok(o, "blob") || !oid_ok(o, "span") || !oid_ok(o, "head"))
		return "an anchor's fingerprint is not a git id";
	if (!time_ok(jsonx_str(o, "recorded_at")))
		return "an anchor's recorded_at is not a time";
	return NULL;
}

const char *
anchor_doc_check(const char *text)
{
	json_t		*arr;
	struct err	 err;
	const char	*why = NULL;
	size_t		 i;

	if ((arr = jsonx_parse(text, strlen(text), "anchors", &err)) == NULL)
		return "its anchors are not JSON";
	if (!json_is_array(arr))
		why = "its anchors are not an array";
	else if (json_array_size(arr) > ANCHOR_MAX)
		why = "it has too many anchors";
	for (i = 0; why == NULL && i < json_array_size(arr); i++)
		why = check_one(json_array_get(arr, i));
	json_decref(arr);
	return why;
}

/* The array's anchors as rows; text passed anchor_doc_check. */
static void
take(const json_t *arr, struct anchors *as)
{
	const json_t	*o;
	const char	*v;
	char		**dst[NKEYS];
	size_t		 i, k;

	as->n = json_array_size(arr);
	as->v = xcalloc(as->n > 0 ? as->n : 1, sizeof(*as->v));
	json_array_foreach(arr, i, o) {
		struct anchor	*a = &as->v[i];

		dst[0] = &a->spec, dst[1] = &a->blob, dst[2] = &a->span;
		dst[3] = &a->head, dst[4] = &a->recorded_at;
		for (k = 0; k < NKEYS; k++)
			if ((v = jsonx_str(o, doc_keys[k])) != NULL)
				*dst[k] = xstrdup(v);
		(void)anchor_parse(a->spec, &a->path, &a->symbol, NULL);
	}
}

int
anchor_doc_put(struct store *st, const char *store, const char *slug,
    const char *text, struct err *err)
{
	struct anchors	 as = { NULL, 0 };
	json_t		*arr = NULL;
	const char	*why;
	int		 rc = -1;

	if (text == NULL) {
		/* nothing to drop where no anchor was ever recorded */
		if (anchor_get(st, store, slug, &as, err) != 0)
			return -1;
		if (as.n == 0)
			return 0;
		anchors_release(&as);
	} else if ((why = anchor_doc_check(text)) != NULL)
		return err_set(err, "%s", why);
	else {
		arr = jsonx_parse(text, strlen(text), "anchors", err);
		take(arr, &as);
	}
	if (anchor_tables(st, err) == 0 &&
	    anchor_rows_replace(st, store, slug, &as, err) == 0)
		rc = 0;
	anchors_release(&as);
	json_decref(arr);
	return rc;
}
