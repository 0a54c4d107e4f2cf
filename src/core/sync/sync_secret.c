/*
 * sync_secret.c — the short, documented set of patterns (docs/sync.md
 * "Secrets") that make `thatch sync` keep a memory at home unless the
 * user forces it.
 *
 * Each pattern matches the shape a provider gives its credentials (a
 * fixed prefix and a length), not a guess at entropy: a false alarm costs
 * a one-line notice, a miss a leaked key, so the set errs towards the
 * provider formats people paste into notes.
 *  1. Patterns are POSIX extended regular expressions, compiled once per
 *     sync (a set the caller holds), never per memory.
 */
#include "core/sync/sync_secret.h"

#include <regex.h>
#include <stddef.h>
#include <stdlib.h>

#include "util/xmalloc.h"

static const struct {
	const char	*name, *re;
	int		 flags;		/* REG_ICASE where case varies */
} patterns[] = {
	{ "a private key", "-----BEGIN ([A-Z0-9]+ )*PRIVATE KEY( BLOCK)?-----", 0 },
	{ "an AWS access key", "(^|[^A-Z0-9])(AKIA|ASIA)[A-Z0-9]{16}([^A-Z0-9]|$)", 0 },
	{ "an AWS secret key",
	  "aws_?secret_?(access_?)?key[\"']?[[:space:]]*[:=][[:space:]]*"
	  "[\"']?[A-Za-z0-9/+]{40}", REG_ICASE },
	{ "a Google Cloud key", "AIza[0-9A-Za-z_-]{35}", 0 },
	{ "a Google service account", "\"private_key_id\"[[:space:]]*:", 0 },
	{ "a GitHub token", "(gh[pousr]_[A-Za-z0-9]{36}|github_pat_[A-Za-z0-9_]{22,})", 0 },
	{ "a GitLab token", "glpat-[A-Za-z0-9_-]{20}", 0 },
	{ "a Slack token", "xox[abposr]-[A-Za-z0-9-]{10,}", 0 },
	{ "a Slack webhook", "hooks\\.slack\\.com/services/T[A-Za-z0-9_/]+", 0 },
	{ "a Stripe key", "(sk|rk)_live_[A-Za-z0-9]{20,}", 0 },
	{ "an OpenAI or Anthropic key", "sk-(ant-|proj-)?[A-Za-z0-9_-]{32,}", 0 },
	/* issue 31: the shapes the probe found missing */
	{ "a JSON Web Token",
	  "eyJ[A-Za-z0-9_-]{10,}\\.eyJ[A-Za-z0-9_-]{10,}\\.[A-Za-z0-9_-]{10,}", 0 },
	{ "a password in an env line",
	  "(^|[^A-Za-z0-9_])[A-Za-z0-9_]*(password|passwd|secret|api_?key|"
	  "token)[A-Za-z0-9_]*=[\"']?[^[:space:]\"']{6,}", REG_ICASE },
	{ "a URL with a password",
	  "[a-z][a-z0-9+.-]*://[^/[:space:]:@]+:[^/[:space:]@]{3,}@", REG_ICASE },
	{ "an npm token", "npm_[A-Za-z0-9]{36}", 0 },
	{ "an Azure connection string",
	  "(AccountKey|SharedAccessKey)=[A-Za-z0-9+/]{20,}", 0 },
};

#define NPATTERNS	(sizeof(patterns) / sizeof(patterns[0]))

struct sync_secrets {
	regex_t	re[NPATTERNS];
};

struct sync_secrets *
sync_secrets_new(void)
{
	struct sync_secrets	*s = xcalloc(1, sizeof(*s));
	size_t			 i;

	for (i = 0; i < NPATTERNS; i++) {
		/* the table is ours: a pattern that does not compile is a
		 * bug the unit test catches */
		if (regcomp(&s->re[i], patterns[i].re,
		    REG_EXTENDED | REG_NOSUB | patterns[i].flags) != 0)
			abort();
	}
	return s;
}

void
sync_secrets_free(struct sync_secrets *s)
{
	size_t	i;

	if (s == NULL)
		return;
	for (i = 0; i < NPATTERNS; i++)
		regfree(&s->re[i]);
	free(s);
}

const char *
sync_secrets_find(const struct sync_secrets *s, const char *text)
{
	size_t	i;

	for (i = 0; i < NPATTERNS; i++)
		if (regexec(&s->re[i], text, 0, NULL, 0) == 0)
			return patterns[i].name;
	return NULL;
}
