/*
 * progress.c — the progress bar of long jobs a person waits for (a model
 * download, `thatch reembed`): one line on stderr, redrawn in place, so
 * that stdout keeps only the job's result.
 */
#include "util/progress.h"

#include <stdio.h>

#define PROGRESS_COLS	30

void
progress_draw(const char *what, int pct, const char *detail)
{
	int	bar;

	pct = pct < 0 ? 0 : pct > 100 ? 100 : pct;
	bar = pct * PROGRESS_COLS / 100;
	fprintf(stderr, "\r[thatch] %s [%.*s%*s] %3d%% %s", what, bar,
	    "==============================", PROGRESS_COLS - bar, "", pct,
	    detail);
	fflush(stderr);
}
