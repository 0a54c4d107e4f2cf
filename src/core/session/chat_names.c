/*
 * chat_names.c — where chat display names come from when a session does
 * not pick one (engines-and-extras B5 "Name assignment"): the base a
 * session title yields, else the built-in pool. Counters, uniqueness and
 * the database are chat.c's; this file is pure.
 *
 *  1. The pool is thatch's own invention (B5: "the C port authors its own
 *     list"): 72 made-up compounds of old computing and science-fiction
 *     words, lowercase kebab-case, unique (test_chat checks both).
 *  2. A base is pure ASCII [a-z0-9-]: whatever a title holds, the name that
 *     reaches other sessions' transcripts cannot carry markup or control
 *     characters.
 */
#include "core/session/chat_names.h"

#include <string.h>

#include "util/utf8.h"

const char *const chat_names_pool[] = {
	"bytewarden", "nullwick", "hexmoth", "lispwren", "quuxling",
	"foobarnacle", "segfaultine", "kludgewing", "daemonfly", "gopherlark",
	"bitsprocket", "cobolt", "fortranimal", "ramjet-owl", "stackmole",
	"heapfinch", "parsnipper", "grepgoyle", "awkitten", "sedimental",
	"tarpitter", "zorkling", "plughdrake", "xyzzyphus", "frobnitz",
	"bogomip", "crufticle", "glitchwick", "jiffywing", "nybbler",
	"octothorn", "pixelpike", "qubitten", "robotrout", "shebangle",
	"tapewyrm", "uptimer", "vaxorcist", "wumpusher", "yaccatoo",
	"zilchpunk", "ansible-ant", "blinkenwolf", "coreweasel", "dotmatrixie",
	"ethernaut", "flopcat", "gigaloon", "hollerith", "inodeer",
	"jcl-jay", "kiloquark", "loopkin", "mainframer", "netsplitter",
	"opcodex", "punchcardinal", "quinezilla", "relayzard", "sysoppel",
	"telexotic", "unixorn", "vectrix", "warpcore-wasp", "x11ama",
	"yottabiter", "zmodemon", "baudrake", "cyberhen", "droidling",
	"emacsolotl", "fuzzbat",
	NULL
};

/* Words a title's base skips (B5: "significant words"). */
static const char *const stopwords[] = {
	"a", "an", "the", "and", "or", "of", "to", "for", "in", "on", "at",
	"with", "by", "from", "is", "it", "this", "that", "my", "our", NULL
};

static const char *const placeholders[] = {
	"New session", "Child session", NULL
};

static bool
is_stopword(const char *w, size_t n)
{
	const char *const	*s;

	for (s = stopwords; *s != NULL; s++)
		if (strlen(*s) == n && memcmp(*s, w, n) == 0)
			return true;
	return false;
}

/* The ASCII letter or digit a code point folds to, lowercase, or 0. */
static char
fold(int32_t cp)
{
	/*
	 * Latin-1 and Latin Extended-A letters lose their accents (their NFKD
	 * base letter); '?' marks the ones with none (the ligatures, thorn, the
	 * dotless i, kra), which end a word.
	 */
	static const char	latin1[] =
	    "aaaaaa?ceeeeiiiidnooooo?ouuuuyts"	/* U+00C0-U+00DF */
	    "aaaaaa?ceeeeiiiidnooooo?ouuuuyty";	/* U+00E0-U+00FF */
	static const char	ext_a[] =
	    "aaaaaaccccccccddddeeeeeeeeeegggg"	/* U+0100-U+017F */
	    "gggghhhhiiiiiiiiii??jjkk?lllllll"
	    "lllnnnnnnnnnoooooo??rrrrrrssssss"
	    "ssttttttuuuuuuuuuuuuwwyyyzzzzzzs";
	char			c = 0;

	if (cp >= 'A' && cp <= 'Z')
		return (char)(cp - 'A' + 'a');
	if ((cp >= 'a' && cp <= 'z') || (cp >= '0' && cp <= '9'))
		return (char)cp;
	if (cp >= 0xC0 && cp <= 0xFF)
		c = latin1[cp - 0xC0];
	else if (cp >= 0x100 && cp <= 0x17F)
		c = ext_a[cp - 0x100];
	return c == '?' ? 0 : c;
}

bool
chat_names_base(const char *title, char *out)
{
	const char *const	*p;
	char			 word[CHAT_NAMES_BASE_MAX + 1];
	size_t			 len, i = 0, n, wl = 0, words = 0, letters = 0;
	int32_t			 cp;
	char			 c;

	out[0] = '\0';
	if (title == NULL)
		return false;
	for (p = placeholders; *p != NULL; p++)
		if (strncmp(title, *p, strlen(*p)) == 0)
			return false;
	len = strlen(title);
	n = 0;
	while (words < 3) {
		c = 0;
		if (i < len) {
			i += utf8_decode(title + i, len - i, &cp);
			c = fold(cp);
		}
		if (c != 0 && wl < CHAT_NAMES_BASE_MAX) {
			word[wl++] = c;
			continue;
		}
		if (c != 0)
			continue;	/* a word too long for a base is cut */
		if (wl > 0 && !is_stopword(word, wl) &&
		    n + (n > 0) + wl <= CHAT_NAMES_BASE_MAX) {
			if (n > 0)
				out[n++] = '-';
			memcpy(out + n, word, wl);
			n += wl;
			words++;
		} else if (wl > 0 && !is_stopword(word, wl))
			break;		/* the next word would not fit */
		wl = 0;
		if (i >= len)
			break;
	}
	out[n] = '\0';
	for (i = 0; i < n; i++)
		letters += out[i] >= 'a' && out[i] <= 'z';
	if (letters < 3) {
		out[0] = '\0';
		return false;
	}
	return true;
}

bool
chat_names_valid(const char *name)
{
	size_t	i, n = strlen(name);
	char	c;

	if (n == 0 || n > 32)
		return false;
	for (i = 0; i < n; i++) {
		c = name[i];
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		    (c >= '0' && c <= '9') || (i > 0 && (c == '.' ||
		    c == '_' || c == '-'))))
			return false;
	}
	return true;
}
