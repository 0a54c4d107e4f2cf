/*
 * test_sync_merge.c — the per-memory merge rules of `thatch sync`
 * (docs/sync.md "Merging") as a table: each row is base, local and
 * remote in a small notation and the action expected.
 *
 * Also the tree's names and tombstones (outside input) and the secret
 * patterns that keep a memory at home.
 *
 * A side is "-" (nothing), "~T" (a tombstone forgotten at time T) or
 * "oT" (a document with blob id o, updated at time T); one letter stands
 * for a blob id and one digit for a time.
 */
#include "check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/sync/sync_merge.h"
#include "core/sync/sync_secret.h"
#include "util/sbuf.h"

static void
side(const char *spec, struct sync_side *s, char *time)
{
	memset(s, 0, sizeof(*s));
	if (strcmp(spec, "-") == 0)
		return;
	time[0] = '2';
	time[1] = spec[1];
	time[2] = '\0';
	s->time = time;
	if (spec[0] == '~') {
		s->kind = SYNC_TOMB;
		memset(s->oid, 't', SYNC_OID_LEN);
		s->oid[SYNC_OID_LEN - 1] = spec[1];
		return;
	}
	s->kind = SYNC_LIVE;
	memset(s->oid, spec[0], SYNC_OID_LEN);
}

static const struct {
	const char		*what, *base, *local, *remote;
	enum sync_action	 want;
} rows[] = {
	{ "nothing anywhere", "-", "-", "-", SYNC_KEEP },
	{ "unchanged on both sides", "a1", "a1", "a1", SYNC_KEEP },
	{ "new on local is sent", "-", "a1", "-", SYNC_SEND },
	{ "new on remote is taken", "-", "-", "a1", SYNC_TAKE },
	{ "edited on local alone is sent", "a1", "b2", "a1", SYNC_SEND },
	{ "edited on remote alone is taken", "a1", "a1", "b2", SYNC_TAKE },
	{ "the same edit on both is nothing", "a1", "b2", "b2", SYNC_KEEP },
	{ "forgotten on local alone sends a tombstone", "a1", "-", "a1",
	  SYNC_SEND_TOMB },
	{ "forgotten on remote alone drops local", "a1", "a1", "~2",
	  SYNC_DROP },
	{ "forgotten on remote without tombstone drops local", "a1", "a1",
	  "-", SYNC_DROP },
	{ "forgotten on both is nothing", "a1", "-", "~2", SYNC_KEEP },
	{ "a tombstone already synced stays", "~1", "-", "~1", SYNC_KEEP },
	{ "forgotten local, edited remote: the edit wins", "a1", "-", "b2",
	  SYNC_TAKE },
	{ "edited local, forgotten remote: the edit wins", "a1", "b3", "~2",
	  SYNC_SEND },
	{ "edited local, forgotten remote later: the edit still wins", "a1",
	  "b2", "~5", SYNC_SEND },
	{ "edited on both, local later", "a1", "b3", "c2", SYNC_WIN_LOCAL },
	{ "edited on both, remote later", "a1", "b2", "c3", SYNC_WIN_REMOTE },
	{ "edited on both at once: the greater blob id wins", "a1", "c2",
	  "b2", SYNC_WIN_LOCAL },
	{ "the tie-break agrees from the other side", "a1", "b2", "c2",
	  SYNC_WIN_REMOTE },
	{ "no base, both hold different documents", "-", "b2", "c3",
	  SYNC_WIN_REMOTE },
	{ "no base, the same document", "-", "b2", "b2", SYNC_KEEP },
	{ "no base, a newer tombstone removes nothing", "-", "a1", "~2",
	  SYNC_SEND },
	{ "no base, an edit after the tombstone survives", "-", "a3", "~2",
	  SYNC_SEND },
	{ "recreated locally after a synced forget", "~1", "a2", "~1",
	  SYNC_SEND },
	{ "recreated remotely after a synced forget", "~1", "-", "a2",
	  SYNC_TAKE },
};

static void
test_rules(void)
{
	struct sync_item	it;
	char			tb[3], tl[3], tr[3];
	size_t			i;

	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		memset(&it, 0, sizeof(it));
		side(rows[i].base, &it.base, tb);
		side(rows[i].local, &it.local, tl);
		side(rows[i].remote, &it.remote, tr);
		if (sync_merge_one(&it) != rows[i].want)
			CHECK_FAIL("%s: got %d, want %d", rows[i].what,
			    (int)sync_merge_one(&it), (int)rows[i].want);
	}
}

/* Invariant 2: swapping local and remote mirrors the decision, so the
 * two machines of a conflict agree on the winner. */
static void
test_symmetric(void)
{
	static const enum sync_action mirror[] = {
		[SYNC_KEEP] = SYNC_KEEP, [SYNC_SEND] = SYNC_TAKE,
		[SYNC_TAKE] = SYNC_SEND, [SYNC_WIN_LOCAL] = SYNC_WIN_REMOTE,
		[SYNC_WIN_REMOTE] = SYNC_WIN_LOCAL,
	};
	static const char *const sides[] = { "a1", "b2", "c2", "d3" };
	struct sync_item	x, y;
	char			t[4][3];
	enum sync_action	ax, ay;
	size_t			i, j;

	for (i = 0; i < 4; i++)
		for (j = 0; j < 4; j++) {
			memset(&x, 0, sizeof(x));
			side("-", &x.base, t[0]);
			side(sides[i], &x.local, t[1]);
			side(sides[j], &x.remote, t[2]);
			y = x;
			y.local = x.remote;
			y.remote = x.local;
			ax = sync_merge_one(&x);
			ay = sync_merge_one(&y);
			if (mirror[ax] != ay)
				CHECK_FAIL("%s vs %s: %d and %d", sides[i],
				    sides[j], (int)ax, (int)ay);
		}
}

static void
test_held(void)
{
	struct sync_item	it;
	char			t[3][3];

	memset(&it, 0, sizeof(it));
	side("a1", &it.base, t[0]);
	side("b2", &it.local, t[1]);
	side("-", &it.remote, t[2]);
	it.held = true;
	CHECK_INT(sync_merge_one(&it), SYNC_KEEP);
}

static void
test_counts(void)
{
	CHECK(sync_action_sends(SYNC_SEND));
	CHECK(sync_action_sends(SYNC_SEND_TOMB));
	CHECK(!sync_action_sends(SYNC_TAKE));
	CHECK(sync_action_takes(SYNC_DROP));
	CHECK(!sync_action_takes(SYNC_KEEP));
	CHECK(sync_action_takes(SYNC_WIN_LOCAL) &&
	    sync_action_sends(SYNC_WIN_REMOTE));
}

static void
test_paths(void)
{
	static const struct {
		const char	*path, *slug;
		enum sync_kind	 kind;
	} cases[] = {
		{ "memories/build-flag.md", "build-flag", SYNC_LIVE },
		{ "memories/caf\xc3\xa9_2.md", "caf\xc3\xa9_2", SYNC_LIVE },
		{ "tombstones/old-note", "old-note", SYNC_TOMB },
		{ "memories/.md", NULL, SYNC_NONE },
		{ "memories/x", NULL, SYNC_NONE },
		{ "memories/a/b.md", NULL, SYNC_NONE },
		{ "memories/../x.md", NULL, SYNC_NONE },
		{ "tombstones/.hidden", NULL, SYNC_NONE },
		{ "tombstones/", NULL, SYNC_NONE },
		{ "memories/a b.md", NULL, SYNC_NONE },
		{ "memories/a\nM 100644 inline x.md", NULL, SYNC_NONE },
		{ "README.md", NULL, SYNC_NONE },
	};
	const char	*slug;
	size_t		 len, i;
	char		 got[256];

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		enum sync_kind k = sync_path_parse(cases[i].path, &slug, &len);

		if (k != cases[i].kind) {
			CHECK_FAIL("%s: kind %d, want %d", cases[i].path,
			    (int)k, (int)cases[i].kind);
			continue;
		}
		if (k == SYNC_NONE)
			continue;
		snprintf(got, sizeof(got), "%.*s", (int)len, slug);
		CHECK_STR(got, cases[i].slug);
	}
}

static void
test_tombstones(void)
{
	struct sbuf	 sb = SBUF_INIT;
	char		*t;

	sync_tomb_render("2026-01-02T03:04:05.678Z", &sb);
	CHECK_STR(sb.buf, "forgotten_at: 2026-01-02T03:04:05.678Z\n");
	t = sync_tomb_parse(sb.buf, sb.len);
	CHECK_STR(t, "2026-01-02T03:04:05.678Z");
	free(t);
	t = sync_tomb_parse("forgotten_at: 2026\n", 19);
	CHECK_STR(t, "2026");
	free(t);
	CHECK(sync_tomb_parse("forgotten_at: 2026", 18) == NULL);
	CHECK(sync_tomb_parse("forgotten_at: x\n", 16) == NULL);
	CHECK(sync_tomb_parse("forgotten_at: \n", 15) == NULL);
	CHECK(sync_tomb_parse("label: x\n", 9) == NULL);
	CHECK(sync_tomb_parse("", 0) == NULL);
	sbuf_release(&sb);
}

/* docs/sync.md "Secrets": each pattern, and text that must pass. */
static void
test_secrets(void)
{
	static const struct {
		const char	*text, *want;
	} cases[] = {
		{ "-----BEGIN OPENSSH PRIVATE KEY-----\nb3Blbn", "a private key" },
		{ "-----BEGIN RSA PRIVATE KEY-----", "a private key" },
		{ "-----BEGIN PRIVATE KEY-----", "a private key" },
		{ "key AKIAABCDEFGHIJKLMNOP for s3", "an AWS access key" },
		{ "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
		  "an AWS secret key" },
		{ "AIzaSyA1234567890abcdefghijklmnopqrstuv", "a Google Cloud key" },
		{ "{\"type\": \"service_account\", \"private_key_id\": \"1\"}",
		  "a Google service account" },
		{ "ghp_0123456789abcdefghijklmnopqrstuvwxyz", "a GitHub token" },
		{ "github_pat_11ABCDEFG0123456789_abcdefghij", "a GitHub token" },
		{ "glpat-abcdefghij0123456789", "a GitLab token" },
		{ "xoxb-123456789012-abcdefghij", "a Slack token" },
		{ "https://hooks.slack.com/services/T000/B000/XXXX",
		  "a Slack webhook" },
		{ "sk_live_abcdefghijklmnopqrstuvwx", "a Stripe key" },
		{ "sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789",
		  "an OpenAI or Anthropic key" },
		/* issue 31: the probe's missed shapes */
		{ "AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
		  "an AWS secret key" },
		{ "auth: eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0."
		  "dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
		  "a JSON Web Token" },
		{ "DB_PASSWORD=hunter2hunter2", "a password in an env line" },
		{ "export GITHUB_TOKEN='abcdef123456'", "a password in an env line" },
		{ "postgres://app:s3cretpw@db.internal:5432/app",
		  "a URL with a password" },
		{ "https://deploy:tok3nvalue@git.example.com/x.git",
		  "a URL with a password" },
		{ "npm_abcdefghijklmnopqrstuvwxyz0123456789", "an npm token" },
		{ "DefaultEndpointsProtocol=https;AccountName=a;AccountKey="
		  "abcdefghijklmnopqrstuvwxyz0123==", "an Azure connection string" },
		{ "Endpoint=sb://x.servicebus.windows.net/;SharedAccessKeyName=r;"
		  "SharedAccessKey=abcdefghijklmnopqrstuvwxyz0123=",
		  "an Azure connection string" },
		{ "make needs -j2; see AKIA docs", NULL },
		{ "set PASSWORD= in .env before the first run", NULL },
		{ "clone https://github.com/acme/api and run make", NULL },
		{ "email me at dev@example.com", NULL },
		{ "the PRIVATE KEY lives in vault, path secret/x", NULL },
		{ "ghp_ is the prefix of GitHub tokens", NULL },
		{ "use sk-learn for the model", NULL },
	};
	struct sync_secrets	*s = sync_secrets_new();
	size_t			 i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		CHECK_STR(sync_secrets_find(s, cases[i].text) ?
		    sync_secrets_find(s, cases[i].text) : "(none)",
		    cases[i].want ? cases[i].want : "(none)");
	sync_secrets_free(s);
	sync_secrets_free(NULL);
}

CHECK_MAIN(TEST(test_rules), TEST(test_symmetric), TEST(test_held),
    TEST(test_counts), TEST(test_paths), TEST(test_tombstones),
    TEST(test_secrets))
