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
 *  6. Statements are written every way too: "Never force-push", "Don't
 *     push to main", "I should run the tests", "The user prefers tabs".
 *     The subject and its modal go ("I should", "you must"), a third
 *     person's verb takes its bare form ("the user prefers" -> "prefer",
 *     and "may prefer to prefer" is "may prefer"), a "please" goes, and a
 *     negation moves before the infinitive ("tends not to push", "do not
 *     push"). "do" gives way to "never" and "always" ("When X:
 *     never force-push"), where "do never" would not parse.
 */
#include "core/engine/engine.h"

#include <stdbool.h>
#include <string.h>
#include <strings.h>

#include "util/ascii.h"
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
		    s[i + 1] != ' ' ||
		    (!ascii_is_upper(s[i + 2]) && s[i + 2] != '"'))
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

	if (n == 0 || !ascii_is_upper(w[0]) || (w[0] == 'I' && (n == 1 ||
	    w[1] == '\'')))
		return false;
	for (i = 1; i < n; i++)
		if (!ascii_is_lower(w[i]) && w[i] != '\'' && w[i] != '-')
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
		sbuf_addc(out, ascii_is_lower(s[0]) ? (char)(s[0] - 'a' + 'A') :
		    s[0]);
		sbuf_adds(out, s + 1);
		sbuf_release(&t);
		return;
	}
	sbuf_adds(out, "When ");
	add_word_lowered(out, s, true);
	sbuf_release(&t);
}

/* Who an agent writes as the doer of a rule: dropped with its modal. */
static const char *const subjects[] = {
	"i", "you", "we", "the agent", "agents", "the assistant", NULL,
};

/* The modals that follow such a subject. */
static const char *const modals[] = {
	"should", "must", "will", "shall", "need to", "needs to", "have to",
	"has to", "ought to", NULL,
};

/* Third persons whose verb loses its -s ("the user prefers" -> "prefer"). */
static const char *const third_persons[] = {
	"the user", "user", "he", "she", NULL,
};

/* Plural doers, whose verb is already bare ("they write"). */
static const char *const plural_persons[] = {
	"they", "the users", "users", NULL,
};

/*
 * Verbs a subjectless statement opens with in the third person ("Prefers
 * small PRs"), given their bare form like a third person's.
 */
static const char *const third_verbs[] = {
	"prefers", "wants", "likes", "dislikes", "uses", "expects", "avoids",
	"favors", "favours", "asks", "writes", "keeps", NULL,
};

/* Negations, moved before the infinitive ("tends not to"). */
static const char *const negations[] = {
	"don't", "do not", "doesn't", "does not", "not", NULL,
};

/* Adverbs that stand in for "do" ("never force-push"). */
static const char *const adverbs[] = { "never", "always", NULL };

/* Courtesies that come before the verb and go. */
static const char *const courtesies[] = { "please", NULL };

/* s past the listed phrase it starts with and its space, or NULL. */
static const char *
skip_phrase(const char *s, const char *const *list)
{
	size_t	n;

	for (; *list != NULL; list++) {
		n = strlen(*list);
		if (strncasecmp(s, *list, n) == 0 && s[n] == ' ')
			return s + n + 1;
	}
	return NULL;
}

/* Third-person endings and their bare form, longest first ("pushes"). */
static const struct {
	const char	*third, *bare;
} endings[] = {
	{ "sses", "ss" }, { "shes", "sh" }, { "ches", "ch" }, { "zzes", "zz" },
	{ "ies", "y" }, { "xes", "x" }, { "oes", "o" },
};

/* A third person's verb in its bare form: prefers, pushes, tries, does. */
static void
add_bare_verb(struct sbuf *out, const char *s)
{
	size_t	n = word_len(s), i, k;

	if (n == 2 && strncmp(s, "is", 2) == 0)
		sbuf_adds(out, "be");
	else if (n == 3 && strncmp(s, "has", 3) == 0)
		sbuf_adds(out, "have");
	else {
		for (i = 0; i < sizeof(endings) / sizeof(endings[0]); i++) {
			k = strlen(endings[i].third);
			if (n > k && strncmp(s + n - k, endings[i].third, k) ==
			    0)
				break;
		}
		if (i < sizeof(endings) / sizeof(endings[0])) {
			sbuf_add(out, s, n - strlen(endings[i].third));
			sbuf_adds(out, endings[i].bare);
		} else if (n > 2 && s[n - 1] == 's' && s[n - 2] != 's')
			sbuf_add(out, s, n - 1);
		else
			sbuf_add(out, s, n);
	}
	sbuf_adds(out, s + n);
}

/* Whether s starts with the last word of verb's first n bytes. */
static bool
repeats_verb(const char *verb, size_t n, const char *s)
{
	size_t	w = n;

	while (w > 0 && verb[w - 1] != ' ')
		w--;
	return word_len(s) == n - w && strncasecmp(s, verb + w, n - w) == 0 &&
	    s[n - w] == ' ';
}

/*
 * The bare verb phrase of statement s (invariant 6): s past a courtesy
 * and a doer ("I should", "the user", "they"), a third person's verb in
 * its bare form (written to vp), *negated set and the negation skipped.
 */
static const char *
bare_phrase(const char *s, struct sbuf *vp, bool *negated)
{
	const char	*p;
	bool		 third = false;

	if ((p = skip_phrase(s, courtesies)) != NULL)
		s = p;
	if ((p = skip_phrase(s, subjects)) != NULL &&
	    (p = skip_phrase(p, modals)) != NULL)
		s = p;
	else if ((p = skip_phrase(s, third_persons)) != NULL) {
		s = p;
		third = ascii_is_lower(*s) && skip_phrase(s, modals) == NULL &&
		    skip_phrase(s, negations) == NULL;
	} else if ((p = skip_phrase(s, plural_persons)) != NULL)
		s = p;
	else
		third = in_list(third_verbs, s, word_len(s));
	if ((p = skip_phrase(s, modals)) != NULL)
		s = p;
	if ((p = skip_phrase(s, negations)) != NULL) {
		*negated = true;
		return p;
	}
	if (!third)
		return s;
	add_bare_verb(vp, s);
	return vp->buf;
}

/*
 * Append "<verb> <statement>" shaped as invariant 6: verb is the engine's
 * ("the user tends to", "do"), s the squeezed statement.
 */
static void
add_statement(struct sbuf *out, const char *verb, const char *s)
{
	struct sbuf	 vp = SBUF_INIT;
	size_t		 vn = strlen(verb);
	bool		 infinitive = vn > 3 && strcmp(verb + vn - 3, " to") == 0;
	bool		 negated = false;

	sbuf_init(&vp);
	s = bare_phrase(s, &vp, &negated);
	if (negated && infinitive)
		sbuf_addf(out, "%.*s not to ", (int)(vn - 3), verb);
	else if (negated)
		sbuf_addf(out, "%s not ", verb);
	else if (infinitive && repeats_verb(verb, vn - 3, s)) {
		/* "may prefer to prefer tabs": "may prefer tabs" */
		sbuf_add(out, verb, vn - 3);
		s += word_len(s);
	} else if (infinitive || skip_phrase(s, adverbs) == NULL)
		sbuf_addf(out, "%s ", verb);
	add_word_lowered(out, s, false);
	sbuf_release(&vp);
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
	sbuf_adds(out, ": ");
	add_statement(out, h->evidence == 0 ? eng->verb_new :
	    eng->verb_known, st.buf);
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
