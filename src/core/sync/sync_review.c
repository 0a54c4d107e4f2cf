/*
 * sync_review.c — whether a memory a teammate sent reads as an
 * instruction to the agent rather than a note about the project, so that
 * sync holds it for the user's review instead of putting it in context
 * (issue 31; docs/sync.md "Review").
 *
 * The rule. A coding memory is full of imperatives ("run `npm test`
 * before pushing", "use pnpm, not npm"), and those are what memories are
 * for: an imperative alone holds nothing. A memory is held when it asks
 * for what no note about a project needs and an attacker needs:
 *  - to set the agent's instructions aside or speak as the system or as
 *    thatch itself (override, "system notice", thatch's own framing);
 *  - to run code it fetches or decodes (curl|sh, base64 -d|sh, eval of
 *    a download), or to fetch a URL and follow what it says;
 *  - to send local data out (upload a file, post the environment or a
 *    key) or to plant persistence (authorized_keys, shell start-up
 *    files, crontab);
 *  - a deletion of the home or root directory; a way around the agent's
 *    permission checks.
 * A false alarm costs the user one `thatch sync --review --accept`; a
 * miss puts a teammate's (or an intruder's) order in every session.
 *
 * Invariants:
 *  1. Patterns are POSIX extended regular expressions, case-insensitive
 *     and within one line (REG_NEWLINE), compiled once per set, never
 *     per memory; each has the reason the user reads.
 *  2. It reads text only: it knows nothing of where the text came from.
 */
#include "core/sync/sync_review.h"

#include <regex.h>
#include <stddef.h>
#include <stdlib.h>

#include "util/xmalloc.h"

#define SP	"[[:space:]]+"
#define FETCH	"(curl|wget|fetch|iwr|irm|invoke-webrequest|invoke-restmethod)"
#define SHELL	"((sudo" SP ")?(ba|z|da|k|fi)?sh|python[0-9.]*|perl|ruby|node|" \
		"iex|powershell|pwsh)"

static const struct {
	const char	*reason, *re;
} rules[] = {
	{ "it tells the agent to set its instructions aside",
	  "(ignore|disregard|forget|override|bypass)" SP "(all" SP "|any" SP
	  "|the" SP "|your" SP "|of" SP ")*(previous|prior|above|earlier|"
	  "other|system|safety|user'?s?|original)" SP "(instructions|rules|"
	  "prompts?|guidelines|directions|messages)" },
	{ "it speaks as the system or as thatch",
	  "(system" SP "(notice|override|instructions?)|important" SP
	  "(system" SP ")?notice|\\[thatch\\]|</?system>|<\\|im_start\\|>|"
	  "^[[:space:]]*(system|assistant)[[:space:]]*:)" },
	{ "it gives the agent a new role or secret orders",
	  "(you" SP "are" SP "now" SP "(a|an|the|in)[[:space:]]|new" SP
	  "instructions[[:space:]]*:|(do" SP "not|don'?t|never)" SP
	  "(tell|inform|mention[^\n]{0,20}to)" SP "the" SP "user)" },
	{ "it runs code fetched from the network",
	  FETCH "[^|\n]*\\|[[:space:]]*" SHELL "([[:space:]]|$)" },
	{ "it runs code fetched from the network",
	  "(<\\(|\\$\\()[[:space:]]*" FETCH "[[:space:]]" },
	{ "it runs decoded or evaluated code",
	  "(base64" SP "(-d|--decode|-D)[^\n]*\\|[[:space:]]*" SHELL
	  "|eval[[:space:]]*[\"']?\\$\\()" },
	{ "it tells the agent to fetch a URL and follow it",
	  "(fetch|visit|open|read|download|browse|go" SP "to|load)[^\n]{0,40}"
	  "https?://[^\n]{0,120}(and|then)" SP "(follow|run|execute|obey|"
	  "do" SP "what|apply)" },
	{ "it sends local files or data to the network",
	  "(curl|wget|nc|netcat|scp|rsync)[[:space:]][^\n]*(-d[[:space:]]*@|"
	  "--data(-binary|-raw|-urlencode)?[[:space:]=]+@|-T[[:space:]]|"
	  "--upload-file|-F[[:space:]]*[^[:space:]]*=@|--post-file|"
	  "\\$\\((env|printenv|cat)[[:space:]]|\\.ssh/|\\.aws/|"
	  "\\$[a-z_]*(token|key|secret|password))" },
	{ "it plants persistence (keys, shell start-up, crontab)",
	  "(>>?|tee([[:space:]]+-a)?)[[:space:]]*[^[:space:]]*(authorized_keys|"
	  "\\.bashrc|\\.zshrc|\\.profile|\\.bash_profile|/etc/cron)|"
	  "crontab[[:space:]]+-[^l]" },
	{ "it deletes the home or root directory",
	  "rm" SP "(-[a-z-]+" SP ")*(/|/\\*|~/?|\\$home/?|\\*)([[:space:]]|$)" },
	{ "it turns the agent's permission checks off",
	  "(dangerously-skip-permissions|(disable|turn" SP "off|skip|bypass)"
	  SP "(the" SP "|all" SP "|your" SP ")*(security|safety|sandbox|"
	  "permission|approval)[a-z]*" SP "(checks?|prompts?|rules))" },
};

#define NRULES	(sizeof(rules) / sizeof(rules[0]))

struct sync_review {
	regex_t	re[NRULES];
	int	ok[NRULES];	/* compiled; a rule that is not is skipped */
};

struct sync_review *
sync_review_new(void)
{
	struct sync_review	*r = xcalloc(1, sizeof(*r));
	size_t			 i;

	for (i = 0; i < NRULES; i++)
		r->ok[i] = regcomp(&r->re[i], rules[i].re, REG_EXTENDED |
		    REG_ICASE | REG_NOSUB | REG_NEWLINE) == 0;
	return r;
}

void
sync_review_free(struct sync_review *r)
{
	size_t	i;

	if (r == NULL)
		return;
	for (i = 0; i < NRULES; i++)
		if (r->ok[i])
			regfree(&r->re[i]);
	free(r);
}

const char *
sync_review_find(const struct sync_review *r, const char *text)
{
	size_t	i;

	if (text == NULL)
		return NULL;
	for (i = 0; i < NRULES; i++)
		if (r->ok[i] && regexec(&r->re[i], text, 0, NULL, 0) == 0)
			return rules[i].reason;
	return NULL;
}
