/*
 * tok.c — the BERT WordPiece tokenizer, equal to Hugging Face tokenizers
 * and to transformers.js (which produced the reference ids in
 * tests/fixtures/embed) for the BERT-family models thatch runs.
 *
 * Hand-written because no C library implements Hugging Face's tokenizers;
 * Unicode properties and decompositions come from utf8proc. Where the
 * Rust and JavaScript implementations differ in a corner (which characters
 * are whitespace or control), this follows transformers.js, the original's
 * library.
 *  1. Encoding is the pipeline of transformers.js for one sequence: split
 *     on special-token strings; per piece BertNormalizer (clean text, CJK
 *     spacing, lowercase with String.toLowerCase's special cases, NFD and
 *     removal of Mn marks), BertPreTokenizer (JS \s whitespace, one token
 *     per punctuation character), WordPiece (greedy longest match, "##"
 *     continuations, [UNK] for a word of more than max_word code points or
 *     with an unmatched rest); then [CLS] ... [SEP] and truncation.
 *     transformers.js truncates after adding [CLS] and [SEP], so a long
 *     text keeps max - 1 tokens after [CLS] and loses its [SEP] (the
 *     reference ids show it); Python's tokenizers would keep [SEP]. The
 *     original's vectors are the ones to match (store-and-tools §7).
 *  2. Encoding stops as soon as the truncated length is reached, and text
 *     is normalised in pieces of about TOK_CHUNK bytes cut at ASCII
 *     whitespace (which ends every word and every casing context), so a
 *     huge text costs no more than its first 512 tokens' worth.
 *  3. Loading from vocab.txt + tokenizer_config.json and from
 *     tokenizer.json give the same tokenizer (test_tok checks both); the
 *     fast path exists because Jansson needs ~30 ms for tokenizer.json.
 *  4. The canonical reordering step of NFD is skipped: it only moves marks
 *     with a non-zero combining class, which are Mn (removed anyway) except
 *     for a handful of musical symbols.
 */
#include "embed/tok.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>
#include <utf8proc.h>

#include "util/err.h"
#include "util/fileio.h"
#include "util/jsonx.h"
#include "util/path.h"
#include "util/sbuf.h"
#include "util/utf8.h"
#include "util/xmalloc.h"

#define TOK_MAX_WORD	100	/* max_input_chars_per_word default */
#define TOK_MAX_PREFIX	16
#define TOK_MAX_LEN	256	/* longest vocabulary entry, bytes */
#define TOK_CHUNK	4096	/* bytes normalised at a time */

struct slot {
	uint32_t	off;	/* into arena */
	uint32_t	len;
	int32_t		id;	/* -1: empty */
};

struct special {
	char		*s;	/* owned */
	size_t		 len;
	int32_t		 id;
};

struct tok {
	struct sbuf	 arena;		/* token strings, back to back */
	struct slot	*slots;		/* owned; open addressing */
	uint32_t	 mask;
	int		 nvocab;
	size_t		 maxlen;	/* longest token in bytes */
	int32_t		 unk, cls, sep;
	bool		 lowercase, chinese, clean;
	int		 strip;		/* -1 unset (null), 0, 1 */
	int		 max_word;
	char		 prefix[TOK_MAX_PREFIX];
	struct special	*specials;	/* owned; longest first */
	int		 nspecials;
	bool		 first[256];	/* first bytes of specials */
};

/* A growable array of code points. */
struct cps {
	int32_t		*v;
	size_t		 n, cap;
};

static void
cps_push(struct cps *c, int32_t cp)
{
	if (c->n == c->cap)
		c->v = xreallocarray(c->v, c->cap = c->cap * 2 + 64,
		    sizeof(*c->v));
	c->v[c->n++] = cp;
}

static uint32_t
hash(const char *s, size_t len)
{
	uint32_t	h = 2166136261u;

	while (len-- > 0)
		h = (h ^ (unsigned char)*s++) * 16777619u;
	return h;
}

static int32_t
lookup(const struct tok *t, const char *s, size_t len)
{
	uint32_t	i;

	for (i = hash(s, len) & t->mask; t->slots[i].id >= 0;
	    i = (i + 1) & t->mask) {
		if (t->slots[i].len == len &&
		    memcmp(t->arena.buf + t->slots[i].off, s, len) == 0)
			return t->slots[i].id;
	}
	return -1;
}

/* Add the string at arena offset off; a repeated token keeps the last id,
 * as Python's dict does when reading vocab.txt. */
static void
insert(struct tok *t, uint32_t off, uint32_t len, int32_t id)
{
	const char	*s = t->arena.buf + off;
	uint32_t	 i;

	for (i = hash(s, len) & t->mask; t->slots[i].id >= 0;
	    i = (i + 1) & t->mask) {
		if (t->slots[i].len == len &&
		    memcmp(t->arena.buf + t->slots[i].off, s, len) == 0)
			break;
	}
	t->slots[i].off = off;
	t->slots[i].len = len;
	t->slots[i].id = id;
	if (id >= t->nvocab)
		t->nvocab = id + 1;
	if (len > t->maxlen)
		t->maxlen = len;
}

static void
slots_init(struct tok *t, size_t n)
{
	size_t	cap = 64, i;

	while (cap < 2 * n)
		cap *= 2;
	t->slots = xreallocarray(NULL, cap, sizeof(*t->slots));
	for (i = 0; i < cap; i++)
		t->slots[i].id = -1;
	t->mask = (uint32_t)(cap - 1);
}

/* vocab.txt: one token per line, the id is the line number. */
static int
load_vocab_txt(struct tok *t, const char *path, struct err *err)
{
	size_t	 n = 0, off, end, len;
	char	*nl;

	if (fileio_read(path, &t->arena, err) != 0)
		return err_set(err, "cannot read '%s'", path);
	for (off = 0; off < t->arena.len; off = end + 1) {
		nl = memchr(t->arena.buf + off, '\n', t->arena.len - off);
		end = nl ? (size_t)(nl - t->arena.buf) : t->arena.len;
		n++;
	}
	if (n == 0 || n > INT32_MAX / 2)
		return err_set(err, "'%s' is empty", path);
	slots_init(t, n);
	n = 0;
	for (off = 0; off < t->arena.len; off = end + 1, n++) {
		nl = memchr(t->arena.buf + off, '\n', t->arena.len - off);
		end = nl ? (size_t)(nl - t->arena.buf) : t->arena.len;
		len = end - off;
		if (len > 0 && t->arena.buf[end - 1] == '\r')
			len--;
		insert(t, (uint32_t)off, (uint32_t)len, (int32_t)n);
	}
	return 0;
}

static void
add_special(struct tok *t, const char *s, int32_t id)
{
	int	i;

	if (id < 0 || *s == '\0')
		return;
	for (i = 0; i < t->nspecials; i++) {
		if (strcmp(t->specials[i].s, s) == 0)
			return;
	}
	t->specials = xreallocarray(t->specials, (size_t)t->nspecials + 1,
	    sizeof(*t->specials));
	t->specials[t->nspecials].s = xstrdup(s);
	t->specials[t->nspecials].len = strlen(s);
	t->specials[t->nspecials].id = id;
	t->first[(unsigned char)*s] = true;
	t->nspecials++;
}

static int
by_length_desc(const void *a, const void *b)
{
	const struct special	*x = a, *y = b;

	return (x->len < y->len) - (x->len > y->len);
}

/* A token setting: a string or {"content": string} (AddedToken). */
static const char *
token_name(const json_t *cfg, const char *key, const char *dflt)
{
	const json_t	*v = jsonx_get(cfg, key);

	if (json_is_string(v))
		return json_string_value(v);
	if (jsonx_str(v, "content") != NULL)
		return jsonx_str(v, "content");
	return dflt;
}

static int
strip_setting(const json_t *v)
{
	return json_is_true(v) ? 1 : json_is_false(v) ? 0 : -1;
}

/* tokenizer_config.json (optional) on the vocab.txt path. */
static int
load_config(struct tok *t, const char *dir, struct err *err)
{
	static const char *const	 names[][2] = {
		{ "unk_token", "[UNK]" }, { "cls_token", "[CLS]" },
		{ "sep_token", "[SEP]" }, { "pad_token", "[PAD]" },
		{ "mask_token", "[MASK]" },
	};
	struct sbuf	 sb = SBUF_INIT;
	json_t		*cfg = NULL, *v, *added;
	const char	*key, *name;
	char		*path;
	size_t		 i;
	int		 rc = -1, r;

	path = path_join(dir, "tokenizer_config.json");
	r = fileio_read(path, &sb, err);
	if (r < 0)
		goto out;
	if (r == 0) {
		cfg = jsonx_parse(sb.buf, sb.len, path, err);
		if (cfg == NULL)
			goto out;
	}
	if ((v = jsonx_get(cfg, "do_lower_case")) != NULL)
		t->lowercase = json_is_true(v);
	if ((v = jsonx_get(cfg, "tokenize_chinese_chars")) != NULL)
		t->chinese = json_is_true(v);
	t->strip = strip_setting(jsonx_get(cfg, "strip_accents"));
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		name = token_name(cfg, names[i][0], names[i][1]);
		add_special(t, name, lookup(t, name, strlen(name)));
	}
	added = jsonx_get(cfg, "added_tokens_decoder");
	json_object_foreach(added, key, v) {
		if (jsonx_str(v, "content") != NULL)
			add_special(t, jsonx_str(v, "content"),
			    (int32_t)strtol(key, NULL, 10));
	}
	name = token_name(cfg, "unk_token", "[UNK]");
	t->unk = lookup(t, name, strlen(name));
	name = token_name(cfg, "cls_token", "[CLS]");
	t->cls = lookup(t, name, strlen(name));
	name = token_name(cfg, "sep_token", "[SEP]");
	t->sep = lookup(t, name, strlen(name));
	rc = 0;
out:
	json_decref(cfg);
	sbuf_release(&sb);
	free(path);
	return rc;
}

/* tokenizer.json: the whole Hugging Face tokenizer description. */
static int
load_tokenizer_json(struct tok *t, const char *path, struct err *err)
{
	struct sbuf	 sb = SBUF_INIT;
	json_t		*root = NULL, *model, *vocab, *norm, *v;
	const char	*key, *s;
	size_t		 i;
	int		 rc = -1;

	if (fileio_read(path, &sb, err) != 0) {
		err_set(err, "cannot read '%s'", path);
		goto out;
	}
	if ((root = jsonx_parse(sb.buf, sb.len, path, err)) == NULL)
		goto out;
	model = jsonx_get(root, "model");
	vocab = jsonx_get(model, "vocab");
	s = jsonx_str(model, "type");
	if (s == NULL || strcmp(s, "WordPiece") != 0 ||
	    !json_is_object(vocab)) {
		err_set(err, "'%s': tokenizer model is %s, thatch runs "
		    "WordPiece (BERT) tokenizers only", path, s ? s : "missing");
		goto out;
	}
	norm = jsonx_get(root, "normalizer");
	s = jsonx_str(norm, "type");
	if (norm != NULL && (s == NULL || strcmp(s, "BertNormalizer") != 0)) {
		err_set(err, "'%s': normalizer %s is not supported (thatch "
		    "runs BertNormalizer)", path, s ? s : "(untyped)");
		goto out;
	}
	s = jsonx_str(jsonx_get(root, "pre_tokenizer"), "type");
	if (s == NULL || strcmp(s, "BertPreTokenizer") != 0) {
		err_set(err, "'%s': pre-tokenizer %s is not supported (thatch "
		    "runs BertPreTokenizer)", path, s ? s : "missing");
		goto out;
	}
	t->clean = norm != NULL && json_is_true(jsonx_get(norm, "clean_text"));
	t->chinese = norm != NULL &&
	    json_is_true(jsonx_get(norm, "handle_chinese_chars"));
	t->lowercase = norm != NULL &&
	    json_is_true(jsonx_get(norm, "lowercase"));
	t->strip = strip_setting(jsonx_get(norm, "strip_accents"));
	/* longer limits are capped: words that long are not text */
	v = jsonx_get(model, "max_input_chars_per_word");
	if (json_integer_value(v) > 0 &&
	    json_integer_value(v) < TOK_MAX_WORD)
		t->max_word = (int)json_integer_value(v);
	s = jsonx_str(model, "continuing_subword_prefix");
	if (s != NULL && strlen(s) < TOK_MAX_PREFIX)
		snprintf(t->prefix, sizeof(t->prefix), "%s", s);
	slots_init(t, json_object_size(vocab));
	json_object_foreach(vocab, key, v) {
		if (!json_is_integer(v) || json_integer_value(v) < 0 ||
		    json_integer_value(v) > INT32_MAX / 2) {
			err_set(err, "'%s': bad id for token '%s'", path, key);
			goto out;
		}
		i = t->arena.len;
		sbuf_adds(&t->arena, key);
		insert(t, (uint32_t)i, (uint32_t)strlen(key),
		    (int32_t)json_integer_value(v));
	}
	json_array_foreach(jsonx_get(root, "added_tokens"), i, v) {
		if (jsonx_str(v, "content") != NULL &&
		    json_is_integer(jsonx_get(v, "id")))
			add_special(t, jsonx_str(v, "content"),
			    (int32_t)json_integer_value(jsonx_get(v, "id")));
	}
	s = jsonx_str(model, "unk_token");
	s = s ? s : "[UNK]";
	t->unk = lookup(t, s, strlen(s));
	t->cls = lookup(t, "[CLS]", 5);
	t->sep = lookup(t, "[SEP]", 5);
	rc = 0;
out:
	json_decref(root);
	sbuf_release(&sb);
	return rc;
}

int
tok_new(const char *dir, struct tok **out, struct err *err)
{
	struct tok	*t;
	char		*vocab, *json = NULL;
	int		 rc = -1;

	*out = NULL;
	t = xcalloc(1, sizeof(*t));
	t->lowercase = t->chinese = t->clean = true;
	t->strip = -1;
	t->max_word = TOK_MAX_WORD;
	snprintf(t->prefix, sizeof(t->prefix), "##");
	vocab = path_join(dir, "vocab.txt");
	if (fileio_exists(vocab)) {
		if (load_vocab_txt(t, vocab, err) != 0 ||
		    load_config(t, dir, err) != 0)
			goto out;
	} else {
		json = path_join(dir, "tokenizer.json");
		if (load_tokenizer_json(t, json, err) != 0)
			goto out;
	}
	if (t->unk < 0 || t->cls < 0 || t->sep < 0) {
		err_set(err, "tokenizer in '%s' lacks [UNK], [CLS] or [SEP]",
		    dir);
		goto out;
	}
	if (t->maxlen > TOK_MAX_LEN)
		t->maxlen = TOK_MAX_LEN;
	qsort(t->specials, (size_t)t->nspecials, sizeof(*t->specials),
	    by_length_desc);
	*out = t;
	t = NULL;
	rc = 0;
out:
	tok_free(t);
	free(vocab);
	free(json);
	return rc;
}

void
tok_free(struct tok *t)
{
	int	i;

	if (t == NULL)
		return;
	for (i = 0; i < t->nspecials; i++)
		free(t->specials[i].s);
	free(t->specials);
	free(t->slots);
	sbuf_release(&t->arena);
	free(t);
}

int
tok_vocab_size(const struct tok *t)
{
	return t->nvocab;
}

/* JavaScript's \s. */
static bool
is_space(int32_t c)
{
	return c == ' ' || (c >= '\t' && c <= '\r') || c == 0xa0 ||
	    c == 0x1680 || (c >= 0x2000 && c <= 0x200a) || c == 0x2028 ||
	    c == 0x2029 || c == 0x202f || c == 0x205f || c == 0x3000 ||
	    c == 0xfeff;
}

/* transformers.js BertNormalizer._is_control: Cc, Cf, Co, Cs but not the
 * whitespace controls. */
static bool
is_control(int32_t c)
{
	utf8proc_category_t	cat;

	if (c == '\t' || c == '\n' || c == '\r')
		return false;
	cat = utf8proc_category(c);
	return cat == UTF8PROC_CATEGORY_CC || cat == UTF8PROC_CATEGORY_CF ||
	    cat == UTF8PROC_CATEGORY_CO || cat == UTF8PROC_CATEGORY_CS;
}

/*
 * The CJK ideographs BertNormalizer surrounds with spaces. transformers.js
 * tests UTF-16 code units, so the supplementary-plane blocks in Hugging
 * Face's list never match there: only the BMP blocks count.
 */
static bool
is_cjk(int32_t c)
{
	return (c >= 0x4e00 && c <= 0x9fff) || (c >= 0x3400 && c <= 0x4dbf) ||
	    (c >= 0xf900 && c <= 0xfaff);
}

/* BertPreTokenizer's punctuation: \p{P} and the ASCII symbol ranges. */
static bool
is_punct(int32_t c)
{
	utf8proc_category_t	cat;

	if ((c >= 0x21 && c <= 0x2f) || (c >= 0x3a && c <= 0x40) ||
	    (c >= 0x5b && c <= 0x60) || (c >= 0x7b && c <= 0x7e))
		return true;
	cat = utf8proc_category(c);
	return cat >= UTF8PROC_CATEGORY_PC && cat <= UTF8PROC_CATEGORY_PO;
}

static bool
is_cased(int32_t c)
{
	utf8proc_category_t	cat = utf8proc_category(c);

	return cat == UTF8PROC_CATEGORY_LU || cat == UTF8PROC_CATEGORY_LL ||
	    cat == UTF8PROC_CATEGORY_LT;
}

/* Unicode's Case_Ignorable, approximated by category plus the Word_Break
 * MidLetter/MidNumLet/Single_Quote characters. */
static bool
is_case_ignorable(int32_t c)
{
	utf8proc_category_t	cat = utf8proc_category(c);

	return cat == UTF8PROC_CATEGORY_MN || cat == UTF8PROC_CATEGORY_ME ||
	    cat == UTF8PROC_CATEGORY_CF || cat == UTF8PROC_CATEGORY_LM ||
	    cat == UTF8PROC_CATEGORY_SK || c == '\'' || c == '.' || c == ':' ||
	    c == 0xb7 || c == 0x387 || c == 0x5f4 || c == 0x2018 ||
	    c == 0x2019 || c == 0x2024 || c == 0x2027 || c == 0xfe13 ||
	    c == 0xfe52 || c == 0xfe55 || c == 0xff07 || c == 0xff0e ||
	    c == 0xff1a;
}

/* SpecialCasing's Final_Sigma: a cased letter before, none after. */
static bool
final_sigma(const struct cps *a, size_t i)
{
	size_t	j;

	for (j = i; j > 0 && is_case_ignorable(a->v[j - 1]); j--)
		;
	if (j == 0 || !is_cased(a->v[j - 1]))
		return false;
	for (j = i + 1; j < a->n && is_case_ignorable(a->v[j]); j++)
		;
	return j == a->n || !is_cased(a->v[j]);
}

/* BertNormalizer on one piece of text: the result replaces a. */
static void
normalize(const struct tok *t, const char *s, size_t len, struct cps *a,
    struct cps *b)
{
	struct cps	 tmp;
	int32_t		 cp, dec[32];
	utf8proc_ssize_t n, k;
	size_t		 i;
	int		 bound;

	a->n = 0;
	for (i = 0; i < len; ) {
		i += utf8_decode(s + i, len - i, &cp);
		if (t->clean) {
			if (cp == 0 || cp == 0xfffd || is_control(cp))
				continue;
			if (is_space(cp))
				cp = ' ';
		}
		if (t->chinese && is_cjk(cp)) {
			cps_push(a, ' ');
			cps_push(a, cp);
			cps_push(a, ' ');
		} else
			cps_push(a, cp);
	}
	if (t->lowercase) {
		b->n = 0;
		for (i = 0; i < a->n; i++) {
			cp = a->v[i];
			if (cp == 0x130) {	/* İ lowercases to i + U+0307 */
				cps_push(b, 'i');
				cps_push(b, 0x307);
			} else if (cp == 0x3a3)
				cps_push(b, final_sigma(a, i) ? 0x3c2 : 0x3c3);
			else
				cps_push(b, utf8proc_tolower(cp));
		}
		tmp = *a, *a = *b, *b = tmp;
	}
	if (t->strip == 1 || (t->lowercase && t->strip != 0)) {
		b->n = 0;
		for (i = 0; i < a->n; i++) {
			bound = 0;
			n = utf8proc_decompose_char(a->v[i], dec, 32,
			    UTF8PROC_DECOMPOSE, &bound);
			if (n < 0 || n > 32) {
				cps_push(b, a->v[i]);
				continue;
			}
			for (k = 0; k < n; k++) {
				if (utf8proc_category(dec[k]) !=
				    UTF8PROC_CATEGORY_MN)
					cps_push(b, dec[k]);
			}
		}
		tmp = *a, *a = *b, *b = tmp;
	}
}

/*
 * WordPiece on one word of n code points; appends ids until *k == max.
 */
static void
wordpiece(const struct tok *t, const int32_t *w, size_t n, int32_t *ids,
    int *k, int max)
{
	char		 buf[TOK_MAX_PREFIX + TOK_MAX_WORD * 4 + 4];
	size_t		 offs[TOK_MAX_WORD + 1], plen, start, end, pos;
	int32_t		 id = -1, found[TOK_MAX_WORD];
	int		 nfound = 0, i;

	if (n > (size_t)t->max_word || n > TOK_MAX_WORD) {
		ids[(*k)++] = t->unk;
		return;
	}
	plen = strlen(t->prefix);
	memcpy(buf, t->prefix, plen);
	offs[0] = plen;
	for (pos = 0; pos < n; pos++)
		offs[pos + 1] = offs[pos] + (size_t)utf8proc_encode_char(w[pos],
		    (utf8proc_uint8_t *)buf + offs[pos]);
	for (start = 0; start < n; start = end) {
		pos = start == 0 ? plen : offs[start] - plen;
		/* the prefix overwrites the tail of consumed characters */
		if (start != 0)
			memcpy(buf + pos, t->prefix, plen);
		id = -1;
		for (end = n; end > start; end--) {
			if (offs[end] - pos <= t->maxlen &&
			    (id = lookup(t, buf + pos, offs[end] - pos)) >= 0)
				break;
		}
		if (id < 0) {
			ids[(*k)++] = t->unk;
			return;
		}
		found[nfound++] = id;
	}
	for (i = 0; i < nfound && *k < max; i++)
		ids[(*k)++] = found[i];
}

/* BertPreTokenizer + WordPiece over normalized code points. */
static void
split_words(const struct tok *t, const struct cps *a, int32_t *ids, int *k,
    int max)
{
	size_t	i = 0, j;

	while (i < a->n && *k < max) {
		if (is_space(a->v[i])) {
			i++;
			continue;
		}
		if (is_punct(a->v[i])) {
			wordpiece(t, a->v + i, 1, ids, k, max);
			i++;
			continue;
		}
		for (j = i; j < a->n && !is_space(a->v[j]) &&
		    !is_punct(a->v[j]); j++)
			;
		wordpiece(t, a->v + i, j - i, ids, k, max);
		i = j;
	}
}

static const struct special *
special_at(const struct tok *t, const char *s, size_t len)
{
	int	i;

	for (i = 0; i < t->nspecials; i++) {
		if (t->specials[i].len <= len &&
		    memcmp(s, t->specials[i].s, t->specials[i].len) == 0)
			return &t->specials[i];
	}
	return NULL;
}

int
tok_encode(const struct tok *t, const char *s, size_t len, int32_t *ids,
    int max)
{
	const struct special	*sp;
	struct cps		 a = { 0 }, b = { 0 };
	size_t			 i, piece = 0;
	int			 k = 1;

	ids[0] = t->cls;
	for (i = 0; i <= len && k < max; i++) {
		sp = i < len && t->first[(unsigned char)s[i]] ?
		    special_at(t, s + i, len - i) : NULL;
		/* invariant 2: a long piece is cut at ASCII whitespace, where
		 * no normalisation or word spans */
		if (sp == NULL && i < len && !(i - piece >= TOK_CHUNK &&
		    strchr(" \t\n\r", s[i]) != NULL && s[i] != '\0'))
			continue;
		if (i > piece) {
			normalize(t, s + piece, i - piece, &a, &b);
			split_words(t, &a, ids, &k, max);
		}
		if (sp != NULL && k < max) {
			ids[k++] = sp->id;
			i += sp->len - 1;
		}
		piece = i + 1;
	}
	if (k < max)
		ids[k++] = t->sep;
	free(a.v);
	free(b.v);
	return k;
}
