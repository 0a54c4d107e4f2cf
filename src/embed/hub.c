/*
 * hub.c — downloads from the Hugging Face Hub (or any HF_ENDPOINT) with
 * libcurl.
 *
 * Knows URLs and files, not models.
 *  1. A file appears at its final path complete or not at all: the body
 *     is written to "<path>.part-<pid>", fsync'd and renamed into place;
 *     every failure (HTTP error, cut connection, short body, full disk)
 *     removes the temporary file, and the next download of the same file
 *     removes those of processes that died mid-download.
 *  2. A cut connection is detected by libcurl against Content-Length, or
 *     by the chunked encoding's missing terminator.
 *  3. A finished file is evicted from the page cache (it is on disk): the
 *     next read, through st.c's huge-page mapping, caches it in 2 MB
 *     folios, which makes every later process's first embedding faster.
 *  4. libcurl is loaded with dlopen when a download starts, not linked:
 *     its thirty dependent libraries (TLS, LDAP, Kerberos, ...) cost every
 *     thatch process ~20 ms to load, and only a download needs them.
 *  5. The progress line goes to stderr only, and only when it is a
 *     terminal: model.h's contract asks the embed layer to draw it, so
 *     this is the one place below cli/ that writes to a terminal
 *     (deviation from STYLE §6.2, never on stdout).
 */
#include "embed/hub.h"

#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <signal.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CURL_DISABLE_TYPECHECK	/* calls go through api pointers */
#include <curl/curl.h>

#include "util/os/dl.h"
#include "util/os/plat.h"
#include "util/err.h"
#include "util/path.h"
#include "util/progress.h"
#include "util/xmalloc.h"

/* libcurl's entry points, resolved per download (invariant 4). */
struct curl_api {
	void			*dl;
	CURL			*(*easy_init)(void);
	CURLcode		 (*easy_setopt)(CURL *, CURLoption, ...);
	CURLcode		 (*easy_perform)(CURL *);
	CURLcode		 (*easy_getinfo)(CURL *, CURLINFO, ...);
	void			 (*easy_cleanup)(CURL *);
	const char		*(*easy_strerror)(CURLcode);
	struct curl_slist	*(*slist_append)(struct curl_slist *,
				    const char *);
	void			 (*slist_free_all)(struct curl_slist *);
};

struct fetch {
	FILE		*fp;
	const char	*label;
	bool		 progress;
	int		 shown;		/* last percentage drawn, -1: none */
};

static size_t
on_data(char *p, size_t size, size_t n, void *arg)
{
	struct fetch	*f = arg;

	return fwrite(p, size, n, f->fp) * size;
}

static int
on_progress(void *arg, curl_off_t total, curl_off_t now, curl_off_t ut,
    curl_off_t un)
{
	struct fetch	*f = arg;
	char		 what[300], mb[64];
	int		 pct;

	(void)ut;
	(void)un;
	if (!f->progress || total <= 0)
		return 0;
	pct = (int)(now * 100 / total);
	if (pct == f->shown)
		return 0;
	f->shown = pct;
	snprintf(what, sizeof(what), "downloading %s", f->label);
	snprintf(mb, sizeof(mb), "%.1f/%.1f MB", (double)now / 1e6,
	    (double)total / 1e6);
	progress_draw(what, pct, mb);
	return 0;
}

/* libcurl's ABI 4 as each system names it; macOS ships it in /usr/lib. */
#ifdef __APPLE__
#define CURL_LIBRARY	"/usr/lib/libcurl.4.dylib"
#define CURL_PACKAGE	"curl (it comes with macOS)"
#else
#define CURL_LIBRARY	"libcurl.so.4"
#define CURL_PACKAGE	"the Debian package libcurl4"
#endif

static int
curl_load(struct curl_api *api, struct err *err)
{
	const struct dl_sym	syms[] = {
		{ "curl_easy_init", (void **)&api->easy_init, false },
		{ "curl_easy_setopt", (void **)&api->easy_setopt, false },
		{ "curl_easy_perform", (void **)&api->easy_perform, false },
		{ "curl_easy_getinfo", (void **)&api->easy_getinfo, false },
		{ "curl_easy_cleanup", (void **)&api->easy_cleanup, false },
		{ "curl_easy_strerror", (void **)&api->easy_strerror,
		    false },
		{ "curl_slist_append", (void **)&api->slist_append, false },
		{ "curl_slist_free_all", (void **)&api->slist_free_all,
		    false },
	};

	api->dl = dl_load(CURL_LIBRARY, CURL_PACKAGE, syms,
	    sizeof(syms) / sizeof(syms[0]), err);
	return api->dl != NULL ? 0 : -1;
}

static int
perform(const char *url, const char *token, struct fetch *f, long *status,
    struct err *err)
{
	struct curl_api		 api;
	CURL			*c;
	struct curl_slist	*hdr = NULL;
	char			*auth = NULL, ebuf[CURL_ERROR_SIZE] = "";
	CURLcode		 res;
	int			 rc = -1;

	if (curl_load(&api, err) != 0)
		return -1;
	if ((c = api.easy_init()) == NULL) {
		dlclose(api.dl);
		return err_set(err, "cannot start libcurl");
	}
	if (token != NULL) {
		auth = xasprintf("Authorization: Bearer %s", token);
		hdr = api.slist_append(hdr, auth);
	}
	api.easy_setopt(c, CURLOPT_URL, url);
	api.easy_setopt(c, CURLOPT_HTTPHEADER, hdr);
	api.easy_setopt(c, CURLOPT_FOLLOWLOCATION, 1L);
	api.easy_setopt(c, CURLOPT_MAXREDIRS, 10L);
	api.easy_setopt(c, CURLOPT_FAILONERROR, 1L);
	api.easy_setopt(c, CURLOPT_USERAGENT, "thatch/" THATCH_VERSION);
	api.easy_setopt(c, CURLOPT_CONNECTTIMEOUT, 15L);
	/* a stalled transfer fails instead of hanging a command forever */
	api.easy_setopt(c, CURLOPT_LOW_SPEED_LIMIT, 1L);
	api.easy_setopt(c, CURLOPT_LOW_SPEED_TIME, 60L);
	api.easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	api.easy_setopt(c, CURLOPT_ERRORBUFFER, ebuf);
	api.easy_setopt(c, CURLOPT_WRITEFUNCTION, on_data);
	api.easy_setopt(c, CURLOPT_WRITEDATA, f);
	api.easy_setopt(c, CURLOPT_XFERINFOFUNCTION, on_progress);
	api.easy_setopt(c, CURLOPT_XFERINFODATA, f);
	api.easy_setopt(c, CURLOPT_NOPROGRESS, f->progress ? 0L : 1L);
	res = api.easy_perform(c);
	*status = 0;
	api.easy_getinfo(c, CURLINFO_RESPONSE_CODE, status);
	if (f->shown >= 0)
		fputc('\n', stderr);
	if (res == CURLE_HTTP_RETURNED_ERROR && *status == 404)
		rc = HUB_MISSING;
	else if (res == CURLE_HTTP_RETURNED_ERROR && (*status == 401 ||
	    *status == 403))
		rc = HUB_DENIED;
	else if (res != CURLE_OK)
		err_set(err, "cannot download %s: %s", url,
		    *ebuf ? ebuf : api.easy_strerror(res));
	else
		rc = 0;
	api.slist_free_all(hdr);
	free(auth);
	api.easy_cleanup(c);
	dlclose(api.dl);
	return rc;
}

/* Remove "<base>.part-<pid>" files in dir whose download died with its
 * process (killed, power cut): they would otherwise stay forever. */
static void
sweep_parts(const char *dir, const char *base)
{
	DIR		*d;
	struct dirent	*e;
	size_t		 n = strlen(base);
	char		*end, *path;
	long		 pid;

	if ((d = opendir(dir)) == NULL)
		return;
	while ((e = readdir(d)) != NULL) {
		if (strncmp(e->d_name, base, n) != 0 ||
		    strncmp(e->d_name + n, ".part-", 6) != 0)
			continue;
		pid = strtol(e->d_name + n + 6, &end, 10);
		if (*end != '\0' || pid <= 0 ||
		    (kill((pid_t)pid, 0) != 0 && errno == ESRCH)) {
			path = path_join(dir, e->d_name);
			unlink(path);
			free(path);
		}
	}
	closedir(d);
}

int
hub_fetch(const char *url, const char *path, const char *token,
    bool progress, struct err *err)
{
	struct fetch	 f = { NULL, NULL, false, -1 };
	char		*dir, *tmp, *base;
	long		 status;
	int		 fd = -1, rc = -1;

	dir = path_dirname(path);
	base = path_basename(path);
	tmp = xasprintf("%s.part-%ld", path, (long)getpid());
	if (path_mkdir_p(dir, 0755, err) != 0)
		goto out;
	sweep_parts(dir, base);
	/* a part of ours is never followed or shared: whatever sits at the
	 * name (an earlier process with our pid, a planted link) goes */
	(void)unlink(tmp);
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
	    0644);
	if (fd < 0 || (f.fp = fdopen(fd, "w")) == NULL) {
		err_errno(err, "cannot create '%s'", tmp);
		goto out;
	}
	fd = -1;
	f.label = base;
	f.progress = progress && isatty(STDERR_FILENO);
	rc = perform(url, token, &f, &status, err);
	if (rc == 0 && (fflush(f.fp) != 0 || fsync(fileno(f.fp)) != 0))
		rc = err_errno(err, "cannot write '%s'", tmp);
	/* written in small page-cache folios: drop them so that the first
	 * reader's huge-page mapping reads the file back in 2 MB ones (st.c
	 * invariant 4) */
	if (rc == 0)
		plat_drop_cache(fileno(f.fp));
	if (fclose(f.fp) != 0 && rc == 0)
		rc = err_errno(err, "cannot write '%s'", tmp);
	f.fp = NULL;
	if (rc == 0 && rename(tmp, path) != 0)
		rc = err_errno(err, "cannot rename '%s' to '%s'", tmp, path);
out:
	if (fd >= 0)
		close(fd);
	if (rc != 0)
		unlink(tmp);
	free(dir);
	free(base);
	free(tmp);
	return rc;
}
