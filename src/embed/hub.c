/*
 * hub.c — downloads from the Hugging Face Hub (or any HF_ENDPOINT) with
 * libcurl.
 *
 * Knows URLs and files, not models.
 *  1. A file appears at its final path complete or not at all: the body
 *     is written to "<path>.part-<pid>", fsync'd and renamed into place;
 *     every failure (HTTP error, cut connection, short body, full disk)
 *     removes the temporary file.
 *  2. A cut connection is detected by libcurl against Content-Length, or
 *     by the chunked encoding's missing terminator.
 *  3. A finished file is evicted from the page cache (it is on disk): the
 *     next read, through st.c's huge-page mapping, caches it in 2 MB
 *     folios, which makes every later process's first embedding faster.
 *  4. The progress line goes to stderr only, and only when it is a
 *     terminal: model.h's contract asks the embed layer to draw it, so
 *     this is the one place below cli/ that writes to a terminal
 *     (deviation from STYLE §6.2, never on stdout).
 */
#include "embed/hub.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <curl/curl.h>

#include "util/err.h"
#include "util/path.h"
#include "util/xmalloc.h"

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
	int		 pct, bar;

	(void)ut;
	(void)un;
	if (!f->progress || total <= 0)
		return 0;
	pct = (int)(now * 100 / total);
	if (pct == f->shown)
		return 0;
	f->shown = pct;
	bar = pct * 30 / 100;
	fprintf(stderr, "\r[thatch] downloading %s [%.*s%*s] %3d%% "
	    "%.1f/%.1f MB", f->label, bar, "==============================",
	    30 - bar, "", pct, (double)now / 1e6, (double)total / 1e6);
	fflush(stderr);
	return 0;
}

static int
perform(const char *url, const char *token, struct fetch *f, long *status,
    struct err *err)
{
	CURL			*c;
	struct curl_slist	*hdr = NULL;
	char			*auth = NULL, ebuf[CURL_ERROR_SIZE] = "";
	CURLcode		 res;
	int			 rc = -1;

	if ((c = curl_easy_init()) == NULL)
		return err_set(err, "cannot start libcurl");
	if (token != NULL) {
		auth = xasprintf("Authorization: Bearer %s", token);
		hdr = curl_slist_append(hdr, auth);
	}
	curl_easy_setopt(c, CURLOPT_URL, url);
	curl_easy_setopt(c, CURLOPT_HTTPHEADER, hdr);
	curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 1L);
	curl_easy_setopt(c, CURLOPT_MAXREDIRS, 10L);
	curl_easy_setopt(c, CURLOPT_FAILONERROR, 1L);
	curl_easy_setopt(c, CURLOPT_USERAGENT, "thatch/" THATCH_VERSION);
	curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT, 15L);
	/* a stalled transfer fails instead of hanging a command forever */
	curl_easy_setopt(c, CURLOPT_LOW_SPEED_LIMIT, 1L);
	curl_easy_setopt(c, CURLOPT_LOW_SPEED_TIME, 60L);
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(c, CURLOPT_ERRORBUFFER, ebuf);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_data);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, f);
	curl_easy_setopt(c, CURLOPT_XFERINFOFUNCTION, on_progress);
	curl_easy_setopt(c, CURLOPT_XFERINFODATA, f);
	curl_easy_setopt(c, CURLOPT_NOPROGRESS, f->progress ? 0L : 1L);
	res = curl_easy_perform(c);
	*status = 0;
	curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, status);
	if (f->shown >= 0)
		fputc('\n', stderr);
	if (res == CURLE_HTTP_RETURNED_ERROR && *status == 404)
		rc = 1;
	else if (res != CURLE_OK)
		err_set(err, "cannot download %s: %s", url,
		    *ebuf ? ebuf : curl_easy_strerror(res));
	else
		rc = 0;
	curl_slist_free_all(hdr);
	free(auth);
	curl_easy_cleanup(c);
	return rc;
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
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
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
		posix_fadvise(fileno(f.fp), 0, 0, POSIX_FADV_DONTNEED);
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
