/* progress.h — one progress line on stderr (progress.c). */
#ifndef THATCH_UTIL_PROGRESS_H
#define THATCH_UTIL_PROGRESS_H

/*
 * Redraw "\r[thatch] <what> [=====     ]  42% <detail>" on stderr: a
 * 30-column bar for pct (0-100). The caller decides whether stderr is a
 * terminal, and ends the line with a newline once done.
 */
void	progress_draw(const char *what, int pct, const char *detail);

#endif
