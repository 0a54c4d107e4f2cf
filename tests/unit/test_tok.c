/*
 * test_tok.c — the tokenizer gives transformers.js's ids: the 25 reference
 * strings (passages and queries), loaded from vocab.txt and from
 * tokenizer.json alike, plus the corners in cases/tok.txt.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <utf8proc.h>

#include "check.h"
#include "embed/model.h"
#include "embed/tok.h"
#include "util/err.h"
#include "util/fileio.h"
#include "util/jsonx.h"
#include "util/sbuf.h"
#include "util/xmalloc.h"

#define TINY	"fixtures/embed/tiny-bert"

static json_t *
load_json(const char *path)
{
	struct sbuf	 sb = SBUF_INIT;
	struct err	 err;
	json_t		*v = NULL;

	if (fileio_read(path, &sb, &err) == 0)
		v = jsonx_parse(sb.buf, sb.len, path, &err);
	sbuf_release(&sb);
	return v;
}

/* Encode text (with the query prefix if query) and compare with want. */
static void
check_ids(const struct tok *t, const char *text, int query,
    const json_t *want)
{
	int32_t		 ids[512];
	char		*s;
	size_t		 i;
	int		 n;

	s = xasprintf("%s%s", query ? MODEL_QUERY_PREFIX : "", text);
	n = tok_encode(t, s, strlen(s), ids, 512);
	CHECK_INT(n, json_array_size(want));
	for (i = 0; i < (size_t)n && i < json_array_size(want); i++) {
		if (ids[i] != json_integer_value(json_array_get(want, i))) {
			CHECK_FAIL("'%s' id %zu: got %d want %lld", text, i,
			    ids[i], json_integer_value(json_array_get(want,
			    i)));
			break;
		}
	}
	free(s);
}

static void
check_fixtures(const struct tok *t)
{
	static const char *const	 files[] = {
		"fixtures/embed/expected/passages.json",
		"fixtures/embed/expected/queries.json",
	};
	json_t				*cases, *c;
	size_t				 i, f;

	for (f = 0; f < 2; f++) {
		cases = load_json(files[f]);
		CHECK(json_array_size(cases) == 25);
		json_array_foreach(cases, i, c)
			check_ids(t, jsonx_str(c, "text"), f == 1,
			    jsonx_get(c, "ids"));
		json_decref(cases);
	}
}

static void
test_fixture_ids_from_vocab_txt(void)
{
	struct tok	*t = NULL;
	struct err	 err;

	CHECK_INT(tok_new(TINY, &t, &err), 0);
	if (t == NULL)
		return;
	CHECK_INT(tok_vocab_size(t), 30522);
	check_fixtures(t);
	tok_free(t);
}

/* The same tokenizer read from tokenizer.json alone (no vocab.txt). */
static void
test_fixture_ids_from_tokenizer_json(void)
{
	char		 dir[] = "/tmp/thatch-tok.XXXXXX";
	struct tok	*t = NULL;
	struct err	 err;
	char		*cmd;

	CHECK(mkdtemp(dir) != NULL);
	cmd = xasprintf("cp " TINY "/tokenizer.json %s/", dir);
	CHECK_INT(system(cmd), 0);
	free(cmd);
	CHECK_INT(tok_new(dir, &t, &err), 0);
	if (t != NULL)
		check_fixtures(t);
	tok_free(t);
	cmd = xasprintf("rm -rf %s", dir);
	CHECK_INT(system(cmd), 0);
	free(cmd);
}

/* Undo the C escapes of a case file line: \t \n \r \\ \xHH \uXXXX. */
static size_t
unescape(const char *s, char *out)
{
	char		*o = out;
	unsigned long	 cp;
	char		 hex[9];
	int		 n;

	while (*s != '\0') {
		if (*s != '\\') {
			*o++ = *s++;
			continue;
		}
		s++;
		switch (*s) {
		case 't': *o++ = '\t'; s++; break;
		case 'n': *o++ = '\n'; s++; break;
		case 'r': *o++ = '\r'; s++; break;
		case 'x':
			memcpy(hex, s + 1, 2);
			hex[2] = '\0';
			*o++ = (char)strtoul(hex, NULL, 16);
			s += 3;
			break;
		case 'u':
		case 'U':
			n = *s == 'u' ? 4 : 8;
			memcpy(hex, s + 1, (size_t)n);
			hex[n] = '\0';
			cp = strtoul(hex, NULL, 16);
			o += utf8proc_encode_char((utf8proc_int32_t)cp,
			    (utf8proc_uint8_t *)o);
			s += n + 1;
			break;
		default: *o++ = *s++; break;
		}
	}
	*o = '\0';
	return (size_t)(o - out);
}

/*
 * cases/tok.txt: an input line (C escapes; "REPEAT <n> <text>" repeats),
 * then the expected ids, a blank line between cases.
 */
static void
test_cases(void)
{
	struct tok	*t = NULL;
	struct err	 err;
	struct sbuf	 sb = SBUF_INIT, in = SBUF_INIT;
	char		*line, *next, *want, buf[4096], got[8192];
	int32_t		 ids[512];
	size_t		 len;
	int		 n, i, rep, ncases = 0;

	CHECK_INT(tok_new(TINY, &t, &err), 0);
	CHECK_INT(fileio_read("unit/cases/tok.txt", &sb, &err), 0);
	for (line = sb.buf; t != NULL && line != NULL && *line; line = next) {
		next = strchr(line, '\n');
		if (next != NULL)
			*next++ = '\0';
		if (*line == '#' || *line == '\0')
			continue;
		want = next;
		if (want == NULL)
			break;
		next = strchr(want, '\n');
		if (next != NULL)
			*next++ = '\0';
		sbuf_reset(&in);
		rep = 1;
		if (strncmp(line, "REPEAT ", 7) == 0) {
			rep = (int)strtol(line + 7, &line, 10);
			line++;
		}
		len = unescape(line, buf);
		for (i = 0; i < rep; i++)
			sbuf_add(&in, buf, len);
		n = tok_encode(t, in.buf, in.len, ids, 512);
		got[0] = '\0';
		for (i = 0; i < n; i++)
			snprintf(got + strlen(got), sizeof(got) - strlen(got),
			    "%s%d", i ? " " : "", ids[i]);
		CHECK_STR(got, want);
		ncases++;
	}
	CHECK(ncases > 10);
	tok_free(t);
	sbuf_release(&sb);
	sbuf_release(&in);
}

static void
test_refuses_other_tokenizers(void)
{
	char		 dir[] = "/tmp/thatch-tok.XXXXXX", *path;
	struct tok	*t = NULL;
	struct err	 err;
	static const char json[] = "{\"model\":{\"type\":\"BPE\",\"vocab\":{}},"
	    "\"pre_tokenizer\":{\"type\":\"ByteLevel\"}}";

	CHECK(mkdtemp(dir) != NULL);
	path = xasprintf("%s/tokenizer.json", dir);
	CHECK_INT(fileio_write_atomic(path, json, sizeof(json) - 1, 0644,
	    &err), 0);
	CHECK_INT(tok_new(dir, &t, &err), -1);
	CHECK(strstr(err.msg, "BPE") != NULL);
	unlink(path);
	CHECK_INT(tok_new(dir, &t, &err), -1);
	CHECK(t == NULL);
	rmdir(dir);
	free(path);
}

CHECK_MAIN(
	TEST(test_fixture_ids_from_vocab_txt),
	TEST(test_fixture_ids_from_tokenizer_json),
	TEST(test_cases),
	TEST(test_refuses_other_tokenizers)
)
