/*
 * fuzz_chat.c — the texts chat takes from outside (src/core/session/chat_names.c,
 * src/core/session/chat.c): a session title from opencode becomes a name base,
 * a message body is laid out for chat_read and the transcript echo, and
 * a user message is recognised as an echo or not. An input is any bytes,
 * cut at the first NUL as the C strings these functions get.
 *
 * Properties (chat_names.h, chat.h): a base is at most 24 characters of
 * [a-z0-9-], never starting, ending or doubling '-', holds 3 letters and
 * is a valid chosen name, or is "" when the title is not usable; a laid
 * out body has every line after the first start with the indent and
 * holds no CR; an echo has every non-empty line start with "[chat]".
 */
#include "fuzz.h"

#include "core/session/chat.h"
#include "core/session/chat_names.h"
#include "util/sbuf.h"
#include "util/xmalloc.h"

static void
check_base(const char *title)
{
	char	b[CHAT_NAMES_BASE_MAX + 1];
	size_t	i, n, letters = 0;
	bool	ok = chat_names_base(title, b);

	n = strlen(b);
	FUZZ_ASSERT(n <= CHAT_NAMES_BASE_MAX);
	FUZZ_ASSERT(ok == (n > 0));
	for (i = 0; i < n; i++) {
		FUZZ_ASSERT((b[i] >= 'a' && b[i] <= 'z') ||
		    (b[i] >= '0' && b[i] <= '9') || b[i] == '-');
		FUZZ_ASSERT(b[i] != '-' || (i > 0 && i + 1 < n &&
		    b[i + 1] != '-'));
		letters += b[i] >= 'a' && b[i] <= 'z';
	}
	FUZZ_ASSERT(!ok || (letters >= 3 && chat_names_valid(b)));
}

static void
check_body(const char *body)
{
	struct sbuf	 sb = SBUF_INIT;
	const char	*p;

	sbuf_init(&sb);
	chat_body(&sb, body, "  ");
	FUZZ_ASSERT(strchr(sb.buf, '\r') == NULL);
	for (p = strchr(sb.buf, '\n'); p != NULL; p = strchr(p + 1, '\n'))
		FUZZ_ASSERT(strncmp(p + 1, "  ", 2) == 0);
	sbuf_reset(&sb);
	sbuf_adds(&sb, "[chat] a \u2192 b: ");
	chat_body(&sb, body, "[chat]   ");
	FUZZ_ASSERT(chat_is_echo(sb.buf));
	sbuf_release(&sb);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char	*s = xmalloc(size + 1);
	bool	 echo;

	memcpy(s, data, size);
	s[size] = '\0';
	check_base(s);
	check_body(s);
	echo = chat_is_echo(s);
	FUZZ_ASSERT(!echo || strncmp(s + strspn(s, "\n"), "[chat]", 6) == 0);
	free(s);
	return 0;
}
