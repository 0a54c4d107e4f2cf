/*
 * hygiene_cache.c — the session-start reminder's cache of hygiene facts.
 *
 * The reminder is a hook with a budget of milliseconds, but the facts of
 * the hygiene report cost whole scans of the entries table (tens of
 * milliseconds each on 10,000 memories, which no index serves) and an
 * all-pairs duplicate scan (about a second). So the reminder prints facts
 * kept in <cache_home>/thatch/hygiene/<key>.json, one file per (database
 * path, store), and a detached refresher rewrites the file when the
 * database has changed. The database gains nothing for this: the stamp
 * is read from outside SQLite, so checking it costs no connection.
 *  1. A file is used as current only if its stamp equals the database's
 *     stamp now. The stamp is read from outside SQLite in two stat calls
 *     and one 24-byte read: the main file's device, inode, size and
 *     modification time, and the WAL's size and salts. Every commit
 *     appends to the WAL (size grows) or restarts it (new salts); every
 *     checkpoint rewrites the main file. An empty WAL and a missing one
 *     stamp the same, since each process's first open creates an empty
 *     one. Recall stamps, checkpoints and writes to other tables or stores
 *     also move the stamp: they cost a refresh, never a wrong number.
 *  2. The stamp is read before the scan that the file records, so a write
 *     during the scan leaves a file whose stamp is already old.
 *  3. The stale count also depends on the time: a file stays current only
 *     while no memory has aged past the limit since it was written
 *     (hygiene_current).
 *  4. A file that cannot be read or parsed, or that names another
 *     database or store, is treated as absent; a file that cannot be
 *     written is skipped. Neither is an error: the reminder must print.
 *  5. Files are replaced whole (rename) without fsync: a crash can lose
 *     or empty one, which rule 4 covers.
 */
#include "core/hygiene_cache.h"

#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "core/hygiene.h"
#include "core/store/store.h"
#include "util/err.h"
#include "util/fileio.h"
#include "util/jsonx.h"
#include "util/log.h"
#include "util/path.h"
#include "util/sbuf.h"
#include "util/xmalloc.h"

#define LOG_TAG	"hygiene:cache"

void
hygiene_cache_init(struct hygiene_cache *c, const char *cache_home,
    const char *db, const char *repo)
{
	uint64_t	h = 0xcbf29ce484222325ull;	/* FNV-1a */
	const char	*s;
	char		*name;

	for (s = db;; s++) {
		h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
		if (*s == '\0')
			break;
	}
	for (s = repo; *s != '\0'; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
	c->db = xstrdup(db);
	c->repo = xstrdup(repo);
	c->dir = path_join(cache_home, "thatch/hygiene");
	name = xasprintf("%016" PRIx64 ".json", h);
	c->file = path_join(c->dir, name);
	free(name);
	name = xasprintf("%016" PRIx64 ".lock", h);
	c->lock = path_join(c->dir, name);
	free(name);
}

void
hygiene_cache_release(struct hygiene_cache *c)
{
	free(c->db);
	free(c->repo);
	free(c->dir);
	free(c->file);
	free(c->lock);
	memset(c, 0, sizeof(*c));
}

/* The database's stamp (rule 1), a new string. */
static char *
stamp_read(const char *db)
{
	struct sbuf	 sb;
	struct stat	 s;
	unsigned char	 hdr[24];
	char		*wal = xasprintf("%s-wal", db);
	int		 fd, i;

	sbuf_init(&sb);
	if (stat(db, &s) == 0)
		sbuf_addf(&sb, "%ju:%ju:%jd:%jd.%09ld", (uintmax_t)s.st_dev,
		    (uintmax_t)s.st_ino, (intmax_t)s.st_size,
		    (intmax_t)s.st_mtim.tv_sec, (long)s.st_mtim.tv_nsec);
	sbuf_adds(&sb, " wal:");
	if ((fd = open(wal, O_RDONLY | O_CLOEXEC)) >= 0 &&
	    fstat(fd, &s) == 0 && s.st_size > 0) {
		sbuf_addf(&sb, "%jd:", (intmax_t)s.st_size);
		if (pread(fd, hdr, sizeof(hdr), 0) == (ssize_t)sizeof(hdr))
			for (i = 16; i < 24; i++)	/* salt-1, salt-2 */
				sbuf_addf(&sb, "%02x", hdr[i]);
	} else
		sbuf_addc(&sb, '0');
	if (fd >= 0)
		close(fd);
	free(wal);
	return sbuf_detach(&sb, NULL);
}

static bool
get_count(json_t *o, const char *key, json_int_t max, json_int_t *n)
{
	json_t	*v = jsonx_get(o, key);

	if (!json_is_integer(v))
		return false;
	*n = json_integer_value(v);
	return *n >= 0 && *n <= max;
}

static bool
same(const json_t *o, const char *key, const char *want)
{
	const char	*s = jsonx_str(o, key);

	return s != NULL && strcmp(s, want) == 0;
}

/* Parse the file's text into f and *stamp; false if it is not ours. */
static bool
parse(const struct hygiene_cache *c, json_t *o, struct hygiene_facts *f,
    char **stamp)
{
	const char	*s;
	json_t		*v, *b;
	json_int_t	 n;
	size_t		 i;

	if (!same(o, "db", c->db) || !same(o, "store", c->repo) ||
	    jsonx_str(o, "stamp") == NULL ||
	    (s = jsonx_str(o, "cutoff")) == NULL ||
	    strlen(s) != CLOCK_ISO_LEN - 1 ||
	    !json_is_array(v = jsonx_get(o, "branches")))
		return false;
	memcpy(f->cutoff, s, CLOCK_ISO_LEN);
	if (!get_count(o, "duplicates", INT64_MAX, &n))
		return false;
	f->dups_known = true;
	f->dups = (size_t)n;
	if (!get_count(o, "stale", INT32_MAX, &n))
		return false;
	f->stale = (int)n;
	if ((s = jsonx_str(o, "next_stale")) != NULL)
		f->next_stale = xstrdup(s);
	json_array_foreach(v, i, b) {
		if (jsonx_str(b, "name") == NULL ||
		    !get_count(b, "live", INT32_MAX, &n))
			return false;
		f->branches = xreallocarray(f->branches, f->nbranches + 1,
		    sizeof(*f->branches));
		f->branches[f->nbranches].name = xstrdup(jsonx_str(b, "name"));
		f->branches[f->nbranches++].nlive = (int)n;
	}
	*stamp = xstrdup(jsonx_str(o, "stamp"));
	return true;
}

/* The cached facts and their stamp, if the file holds ours (rule 4). */
static bool
load(const struct hygiene_cache *c, struct hygiene_facts *f, char **stamp)
{
	struct sbuf	 sb = SBUF_INIT;
	struct err	 err;
	json_t		*o = NULL;
	bool		 ok = false;

	memset(f, 0, sizeof(*f));
	*stamp = NULL;
	sbuf_init(&sb);
	if (fileio_read(c->file, &sb, &err) != 0)
		goto out;
	if ((o = jsonx_parse(sb.buf, sb.len, c->file, &err)) == NULL) {
		log_debug(LOG_TAG, "ignored: %s", err.msg);
		goto out;
	}
	if (!(ok = parse(c, o, f, stamp))) {
		log_debug(LOG_TAG, "ignored: %s is not a cache of this store",
		    c->file);
		hygiene_facts_release(f);
	}
out:
	json_decref(o);
	sbuf_release(&sb);
	return ok;
}

static void
save(const struct hygiene_cache *c, const struct hygiene_facts *f,
    const char *stamp)
{
	struct err	 err;
	json_t		*o = json_object(), *a = json_array(), *b;
	char		*text;
	size_t		 i;

	json_object_set_new(o, "db", json_string(c->db));
	json_object_set_new(o, "store", json_string(c->repo));
	json_object_set_new(o, "stamp", json_string(stamp));
	json_object_set_new(o, "duplicates", json_integer((json_int_t)f->dups));
	json_object_set_new(o, "cutoff", json_string(f->cutoff));
	json_object_set_new(o, "stale", json_integer(f->stale));
	json_object_set_new(o, "next_stale", f->next_stale != NULL ?
	    json_string(f->next_stale) : json_null());
	for (i = 0; i < f->nbranches; i++) {
		b = json_object();
		json_object_set_new(b, "name",
		    json_string(f->branches[i].name));
		json_object_set_new(b, "live",
		    json_integer(f->branches[i].nlive));
		json_array_append_new(a, b);
	}
	json_object_set_new(o, "branches", a);
	text = jsonx_dump(o, 0);
	if (fileio_replace(c->file, text, strlen(text), 0600, &err) != 0)
		log_debug(LOG_TAG, "not written: %s", err.msg);
	free(text);
	json_decref(o);
}

/* Scan with the duplicate count and keep the facts under stamp. */
static int
scan_save(const struct hygiene_cache *c, struct store *st, const char *stamp,
    int64_t now_ms, struct hygiene_facts *f, struct err *err)
{
	int64_t	t0 = clock_mono_ms();

	if (hygiene_scan(st, c->repo, now_ms, true, f, err) != 0)
		return -1;
	save(c, f, stamp);
	log_debug(LOG_TAG, "scanned \"%s\": %zu pairs in %" PRId64 " ms",
	    c->repo, f->dups, clock_mono_ms() - t0);
	return 0;
}

/* load, and keep the facts only if they are current (rules 1 and 3). */
static bool
load_current(const struct hygiene_cache *c, const char *stamp,
    int64_t now_ms, struct hygiene_facts *f, bool *loaded)
{
	char	*cached;
	bool	 current;

	*loaded = load(c, f, &cached);
	current = *loaded && strcmp(stamp, cached) == 0 &&
	    hygiene_current(f, now_ms);
	free(cached);
	return current;
}

bool
hygiene_cache_current(const struct hygiene_cache *c, int64_t now_ms,
    struct hygiene_facts *f)
{
	char	*stamp = stamp_read(c->db);
	bool	 loaded, current = load_current(c, stamp, now_ms, f, &loaded);

	if (!current)
		hygiene_facts_release(f);
	free(stamp);
	return current;
}

int
hygiene_cache_facts(const struct hygiene_cache *c, struct store *st,
    int64_t now_ms, size_t sync_max, struct hygiene_facts *f, bool *refresh,
    struct err *err)
{
	char	*stamp = stamp_read(c->db);
	bool	 loaded;
	int	 n, rc = 0;

	*refresh = false;
	if (load_current(c, stamp, now_ms, f, &loaded))
		goto out;
	if (store_count(st, c->repo, &n, err) != 0) {
		rc = -1;
		goto out;
	}
	if ((size_t)n < sync_max) {
		hygiene_facts_release(f);
		rc = scan_save(c, st, stamp, now_ms, f, err);
		goto out;
	}
	*refresh = true;
	log_debug(LOG_TAG, "\"%s\" changed: %s", c->repo, loaded ?
	    "last known facts" : "no duplicate count yet");
	if (!loaded)
		rc = hygiene_scan(st, c->repo, now_ms, false, f, err);
out:
	if (rc != 0)
		hygiene_facts_release(f);
	free(stamp);
	return rc;
}

int
hygiene_cache_update(const struct hygiene_cache *c, struct store *st,
    int64_t now_ms, struct err *err)
{
	struct hygiene_facts	 f;
	char			*stamp = stamp_read(c->db);
	bool			 loaded;
	int			 rc = 0;

	if (!load_current(c, stamp, now_ms, &f, &loaded)) {
		hygiene_facts_release(&f);
		rc = scan_save(c, st, stamp, now_ms, &f, err);
	}
	hygiene_facts_release(&f);
	free(stamp);
	return rc;
}

int
hygiene_cache_lock(const struct hygiene_cache *c)
{
	int	fd;

	if (path_mkdir_p(c->dir, 0755, NULL) != 0 ||
	    (fd = open(c->lock, O_RDWR | O_CREAT | O_CLOEXEC, 0600)) < 0)
		return -1;
	if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
		close(fd);
		return -1;
	}
	return fd;
}
