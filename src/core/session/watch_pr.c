/*
 * watch_pr.c — a pull request's state from `gh api` JSON, and what
 * changed between two polls (engines-and-extras B7).
 *
 *  1. Only machine status crosses into an event: state, flags, a sha
 *     made of hex digits, counts by conclusion and review state (from
 *     fixed lists; anything else counts as "other"), logins that match
 *     ^[A-Za-z0-9-]{1,39}$ and a comment URL under https://github.com/
 *     made of URL characters. Titles, bodies, check names and messages
 *     are never read into the state, so they cannot reach a prompt.
 *  2. gh's output is outside input: a value of the wrong type is as if
 *     absent, and fields are bounded (fuzz_watch).
 */
#include "core/session/watch.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include <jansson.h>

#include "util/jsonx.h"
#include "util/sbuf.h"

const char *const watch_conclusions[] = {
	"success", "failure", "neutral", "cancelled", "skipped", "timed_out",
	"action_required", "other", NULL,
};

const char *const watch_review_states[] = {
	"APPROVED", "CHANGES_REQUESTED", "COMMENTED", "other", NULL,
};

static json_t *
parse(const char *s)
{
	return s != NULL ? jsonx_parse(s, strlen(s), "gh", NULL) : NULL;
}

/* Index of s in list (NULL-terminated, "other" last), else "other"'s. */
static int
slot(const char *const *list, const char *s)
{
	int	i;

	for (i = 0; list[i + 1] != NULL; i++)
		if (s != NULL && strcmp(list[i], s) == 0)
			return i;
	return i;
}

static bool
valid_login(const char *s)
{
	size_t	n;

	for (n = 0; s != NULL && s[n] != '\0'; n++)
		if (!isalnum((unsigned char)s[n]) && s[n] != '-')
			return false;
	return s != NULL && n >= 1 && n <= 39;
}

static bool
valid_url(const char *s)
{
	const char	*p;

	if (s == NULL || strncmp(s, "https://github.com/", 19) != 0 ||
	    strlen(s) >= sizeof(((struct watch_pr *)0)->newest_url))
		return false;
	for (p = s; *p != '\0'; p++)
		if (!isalnum((unsigned char)*p) && strchr("/:._-#%", *p) == NULL)
			return false;
	return true;
}

static void
parse_checks(const json_t *c, struct watch_pr *pr)
{
	const json_t	*runs = json_object_get(c, "check_runs"), *r;
	const char	*st;
	size_t		 i;

	json_array_foreach(runs, i, r) {
		pr->checks_total++;
		st = jsonx_str(r, "status");
		if (st == NULL || strcmp(st, "completed") != 0)
			continue;
		pr->checks_done++;
		pr->conclusions[slot(watch_conclusions, jsonx_str(r,
		    "conclusion"))]++;
	}
}

/* Whether the comma-separated list has login as a whole entry. */
static bool
listed(const char *list, const char *login)
{
	size_t		 n = strlen(login);
	const char	*p;

	for (p = list; (p = strstr(p, login)) != NULL; p += n)
		if ((p == list || p[-1] == ',') && (p[n] == ',' ||
		    p[n] == '\0'))
			return true;
	return false;
}

static void
add_reviewer(struct watch_pr *pr, const char *login)
{
	size_t	len = strlen(pr->reviewers);

	if (!valid_login(login) || listed(pr->reviewers, login) ||
	    len + strlen(login) + 2 >= sizeof(pr->reviewers))
		return;
	snprintf(pr->reviewers + len, sizeof(pr->reviewers) - len, "%s%s",
	    len > 0 ? "," : "", login);
}

static void
parse_reviews(const json_t *rv, struct watch_pr *pr)
{
	const json_t	*r;
	size_t		 i;

	json_array_foreach(rv, i, r) {
		pr->reviews[slot(watch_review_states, jsonx_str(r, "state"))]++;
		add_reviewer(pr, jsonx_str(json_object_get(r, "user"),
		    "login"));
	}
}

/* Count comments; remember the newest valid URL (by created_at). */
static void
parse_comments(const json_t *cs, struct watch_pr *pr, char *newest_at,
    size_t cap)
{
	const json_t	*c;
	const char	*at;
	size_t		 i;

	json_array_foreach(cs, i, c) {
		pr->comments++;
		at = jsonx_str(c, "created_at");
		if (at != NULL && strcmp(at, newest_at) >= 0 &&
		    strlen(at) < cap && valid_url(jsonx_str(c, "html_url"))) {
			snprintf(newest_at, cap, "%s", at);
			snprintf(pr->newest_url, sizeof(pr->newest_url), "%s",
			    jsonx_str(c, "html_url"));
		}
	}
}

int
watch_pr_parse(const char *pull, const char *checks, const char *reviews,
    const char *icomments, const char *pcomments, struct watch_pr *pr)
{
	json_t		*p = parse(pull), *j;
	const char	*st, *sha;
	char		 newest_at[64] = "";
	size_t		 i;

	memset(pr, 0, sizeof(*pr));
	st = jsonx_str(p, "state");
	if (st == NULL || (strcmp(st, "open") != 0 &&
	    strcmp(st, "closed") != 0)) {
		json_decref(p);
		return -1;
	}
	snprintf(pr->state, sizeof(pr->state), "%s", st);
	pr->merged = json_is_true(json_object_get(p, "merged"));
	pr->draft = json_is_true(json_object_get(p, "draft"));
	sha = jsonx_str(json_object_get(p, "head"), "sha");
	for (i = 0; sha != NULL && i < 40 && isxdigit((unsigned char)sha[i]);
	    i++)
		pr->head[i] = sha[i];
	if (sha == NULL || sha[i] != '\0')
		pr->head[0] = '\0';
	json_decref(p);
	parse_checks(j = parse(checks), pr);
	json_decref(j);
	parse_reviews(j = parse(reviews), pr);
	json_decref(j);
	parse_comments(j = parse(icomments), pr, newest_at, sizeof(newest_at));
	json_decref(j);
	parse_comments(j = parse(pcomments), pr, newest_at, sizeof(newest_at));
	json_decref(j);
	return 0;
}

/* ". " between the events of one diff (out held start bytes before). */
static void
sep(struct sbuf *out, size_t start)
{
	if (out->len > start)
		sbuf_adds(out, ". ");
}

static void
counts(struct sbuf *out, const int *n, const char *const *names)
{
	const char	*comma = "";
	int		 i;

	for (i = 0; names[i] != NULL; i++)
		if (n[i] > 0) {
			sbuf_addf(out, "%s%s %d", comma, names[i], n[i]);
			comma = ", ";
		}
}

static int
total(const int *n, int len)
{
	int	i, t = 0;

	for (i = 0; i < len; i++)
		t += n[i];
	return t;
}

bool
watch_pr_diff(const struct watch_pr *old, const struct watch_pr *now,
    struct sbuf *out)
{
	size_t	start = out->len;
	int	i, d[4];

	if (strcmp(old->head, now->head) != 0 && now->head[0] != '\0')
		sbuf_addf(out, "new head %.7s→%.7s", old->head[0] ? old->head :
		    "none", now->head);
	if (now->checks_total > 0 && now->checks_done == now->checks_total &&
	    (old->checks_done != old->checks_total || old->checks_total == 0 ||
	    strcmp(old->head, now->head) != 0)) {
		sep(out, start);
		sbuf_adds(out, "checks finished — ");
		counts(out, now->conclusions, watch_conclusions);
	}
	for (i = 0; i < 4; i++)
		d[i] = now->reviews[i] > old->reviews[i] ? now->reviews[i] -
		    old->reviews[i] : 0;
	if (total(d, 4) > 0) {
		sep(out, start);
		sbuf_addf(out, "%d new review%s (", total(d, 4), total(d, 4) ==
		    1 ? "" : "s");
		counts(out, d, watch_review_states);
		sbuf_addc(out, ')');
		if (now->reviewers[0] != '\0')
			sbuf_addf(out, " by %s", now->reviewers);
	}
	if (now->comments > old->comments) {
		sep(out, start);
		sbuf_addf(out, "%d new comment%s", now->comments - old->comments,
		    now->comments - old->comments == 1 ? "" : "s");
		if (now->newest_url[0] != '\0')
			sbuf_addf(out, ", newest %s", now->newest_url);
	}
	if (now->merged || strcmp(now->state, "closed") == 0) {
		sep(out, start);
		sbuf_adds(out, now->merged ? "merged" : "closed");
		sbuf_adds(out, "; the watcher ends");
		return true;
	}
	return false;
}
