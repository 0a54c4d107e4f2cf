/*
 * engine_text.c — how a prediction or behavior reads in the auto-fire
 * blocks, in prediction_query and in the lists (engines-and-extras §A7.2,
 * §A8.2, hosts-hooks-cli §5.8): "[0.58 conf, 1 test] When <situation>:
 * <verb> <statement>".
 *
 * Agents write the situation every way: "when writing commit messages",
 * "When the user commits.", "The user is wrapping up. They say \"bye\".",
 * "If CI fails", "\"before a release\"". The line must read as one
 * sentence whichever it was, so the texts are shaped here, never stored
 * shaped (the stored text is what the embedding saw).
 *
 * Invariants:
 *  1. A line is one line: every run of white space becomes one space.
 *  2. The situation shows its first sentence only (the rest of a
 *     default's situation lists trigger phrasings, which serve the
 *     embedding, not the reader), without its closing punctuation and
 *     without quotes around the whole of it.
 *  3. It opens with "When" exactly once: a situation that starts with
 *     "when" loses that word; one that starts with another conjunction
 *     ("if", "before", ...) opens with it instead; an ordinary first word
 *     ("The", "Writing") is lowercased after "When". Words with capitals
 *     inside (GitHub, CI) and "I" keep their case.
 *  4. deviation (§A7.2: "The word is always tests, even for 1", issue 15):
 *     the count agrees with its noun, "1 test".
 *  5. The verbs take a bare verb phrase at both levels (the original's
 *     hedged "you may prefer handle errors first" and "consider run the
 *     linter" did not parse), so the statement's first word is lowercased
 *     the same way.
 */
#include "core/engine.h"

#include <stdbool.h>
#include <string.h>
#include <strings.h>

#include "util/num.h"
#include "util/sbuf.h"

/* Words that open a situation themselves, instead of "When". */
static const char *const conjunctions[] = {
	"if", "whenever", "once", "while", "before", "after", "during",
	"until", "unless", NULL,
};

/* Ordinary words a situation starts with, lowercased after "When". */
static const char *const ordinary[] = {
	"a", "an", "the", "this", "that", "these", "those", "user", "users",
	"someone", "somebody", "anyone", "we", "you", "they", "he", "she",
	"it", "there", "any", "each", "every", "some", "my", "our", "your",
	"their", "no", "all", "both", "another", "one", "work", NULL,
};

/* Abbreviations whose period does not end a sentence. */
static const char *const abbrevs[] = {
	"e.g", "i.e", "etc", "vs", "cf", "approx", NULL,
};

static bool
is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' ||
	    c == '\v';
}

static bool
is_upper(char c)
{
	return c >= 'A' && c <= 'Z';
}

static bool
is_lower(char c)
{
	return c >= 'a' && c <= 'z';
}

static bool
in_list(const char *const *list, const char *w, size_t n)
{
	for (; *list != NULL; list++)
		if (strlen(*list) == n && strncasecmp(*list, w, n) == 0)
			return true;
	return false;
}

/* s with white space runs squeezed and both ends trimmed (invariant 1). */
static void
squeeze(struct sbuf *out, const char *s)
{
	bool	gap = false;

	for (; *s != '\0'; s++) {
		if (is_space(*s)) {
			gap = out->len > 0;
			continue;
		}
		if (gap)
			sbuf_addc(out, ' ');
		gap = false;
		sbuf_addc(out, *s);
	}
}

/* The length of the first word of s (up to a space or a comma). */
static size_t
word_len(const char *s)
{
	return strcspn(s, " ,:;");
}

/* Whether the period at s[i] ends a word listed in abbrevs, or a letter. */
static bool
abbrev_before(const char *s, size_t i)
{
	size_t	j = i;

	while (j > 0 && !is_space(s[j - 1]))
		j--;
	return i - j == 1 || in_list(abbrevs, s + j, i - j);
}

/*
 * The length of the first sentence of s: up to the first '.', '!' or '?'
 * outside double quotes that a space and a capital or a quote follow.
 */
static size_t
first_sentence(const char *s)
{
	bool	quoted = false;
	size_t	i;

	for (i = 0; s[i] != '\0'; i++) {
		if (s[i] == '"')
			quoted = !quoted;
		if (quoted || (s[i] != '.' && s[i] != '!' && s[i] != '?') ||
		    s[i + 1] != ' ' || (!is_upper(s[i + 2]) && s[i + 2] != '"'))
			continue;
		if (s[i] != '.' || !abbrev_before(s, i))
			return i + 1;
	}
	return i;
}

/*
 * Whether the first word w (n bytes) is an ordinary capitalised word to
 * lowercase (invariant 3): one capital then lower case only, not "I"
 * and, for a situation, a listed word or a gerund.
 */
static bool
lowerable(const char *w, size_t n, bool situation)
{
	size_t	i;

	if (n == 0 || !is_upper(w[0]) || (w[0] == 'I' && (n == 1 ||
	    w[1] == '\'')))
		return false;
	for (i = 1; i < n; i++)
		if (!is_lower(w[i]) && w[i] != '\'' && w[i] != '-')
			return false;
	if (!situation)
		return true;
	return in_list(ordinary, w, n) || (n > 4 &&
	    strncmp(w + n - 3, "ing", 3) == 0);
}

static void
add_word_lowered(struct sbuf *out, const char *s, bool situation)
{
	if (lowerable(s, word_len(s), situation)) {
		sbuf_addc(out, (char)(s[0] - 'A' + 'a'));
		s++;
	}
	sbuf_adds(out, s);
}

/* Append "When <situation>" (or "If <...>", ...) shaped as invariant 2-3. */
static void
add_situation(struct sbuf *out, const char *text)
{
	struct sbuf	 t = SBUF_INIT;
	char		*s;
	size_t		 n, w;

	sbuf_init(&t);
	sbuf_grow(&t, 1);	/* writable: the cuts below write NULs */
	squeeze(&t, text);
	s = t.buf;
	n = t.len;
	if (n >= 2 && s[0] == '"' && s[n - 1] == '"' &&
	    memchr(s + 1, '"', n - 2) == NULL) {
		s++;
		n -= 2;
	}
	s[n] = '\0';
	n = first_sentence(s);
	while (n > 0 && (strchr(".,;:!", s[n - 1]) != NULL || s[n - 1] == ' '))
		n--;
	s[n] = '\0';
	w = word_len(s);
	if (w == 4 && strncasecmp(s, "when", 4) == 0) {
		s += w;
		s += strspn(s, " ,:");
	} else if (in_list(conjunctions, s, w)) {
		sbuf_addc(out, is_lower(s[0]) ? (char)(s[0] - 'a' + 'A') :
		    s[0]);
		sbuf_adds(out, s + 1);
		sbuf_release(&t);
		return;
	}
	sbuf_adds(out, "When ");
	add_word_lowered(out, s, true);
	sbuf_release(&t);
}

void
engine_render_evidence(double confidence, long evidence, struct sbuf *out)
{
	char	conf[NUM_BUFSZ];

	sbuf_addf(out, "[%s conf, %ld test%s]", num_fixed(confidence, 2,
	    conf), evidence, evidence == 1 ? "" : "s");
}

void
engine_render_hit(const struct engine *eng, const struct engine_hit *h,
    struct sbuf *out)
{
	struct sbuf	st = SBUF_INIT;

	sbuf_init(&st);
	squeeze(&st, h->statement);
	engine_render_evidence(h->confidence, h->evidence, out);
	sbuf_addc(out, ' ');
	add_situation(out, h->matcher_description);
	sbuf_addf(out, ": %s ", h->evidence == 0 ? eng->verb_new :
	    eng->verb_known);
	add_word_lowered(out, st.buf, false);
	sbuf_release(&st);
}

void
engine_render_nudge(const struct engine *eng, const struct engine_hit *hs,
    size_t n, struct sbuf *out)
{
	size_t	i;

	if (n == 0)
		return;
	sbuf_adds(out, eng->header);
	for (i = 0; i < n; i++) {
		sbuf_adds(out, "\n- ");
		engine_render_hit(eng, &hs[i], out);
	}
}
