/* queue.h — the per-session extraction queue on disk (queue.c), its records
 * (queue_record.c) and the clipping that bounds them (queue_clip.c). */
#ifndef THATCH_CORE_QUEUE_H
#define THATCH_CORE_QUEUE_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

struct err;
struct sbuf;

/* Records kept per session; older ones are dropped first (§4.3). */
#define QUEUE_CAP	20
/*
 * Payload and non-string outputs are cut to this many UTF-16 units; a
 * string output is stored cut to it and "..." (deviation from §4.2, which
 * stores it whole: the payload, its only reader, shows no more).
 */
#define QUEUE_OUTPUT_MAX	500
/* Strings inside a record's args are stored cut to this and "...". */
#define QUEUE_ARG_MAX	1000
/*
 * Readers cut every string of a line to QUEUE_STRING_MAX bytes as they
 * read it (queue_clip_feed), so a line of any length costs a scan (§4.8:
 * older versions stored string outputs whole); a line still longer than
 * QUEUE_LINE_MAX is skipped without being held. Writers write none.
 */
#define QUEUE_STRING_MAX	(64 << 10)
#define QUEUE_LINE_MAX	(1 << 20)
/* Seconds before the sweep takes a killed writer's temporary file. */
#define QUEUE_TMP_AGE	300

/*
 * What the hook decided about one tool call (hosts-hooks-cli §4.3): keep
 * it, skip it (thatch's own tools, meta-tools), or drain the queue before
 * going on (a successful memory_remember / extraction_done).
 */
enum queue_verdict {
	QUEUE_KEEP,
	QUEUE_SKIP,
	QUEUE_DRAIN,
};

/* One tool call as a host reported it. Everything is borrowed. */
struct queue_call {
	const char		*tool;		/* as sent, case kept */
	const json_t		*args;		/* object, or NULL for {} */
	const json_t		*response;	/* any value, NULL for "" */
	enum queue_verdict	 verdict;
};

/*
 * The file-name form of a session id: every byte outside [A-Za-z0-9_-]
 * becomes '_', per code point (two for an astral one) and one per maximal
 * invalid UTF-8 subsequence, as the original's UTF-16 replace did (§4.1).
 * No result can contain '/' or be "." or "..". New string.
 */
char	*queue_safe_id(const char *sid);

/*
 * Apply calls to the session's queue in dir (§4.3): a QUEUE_DRAIN call
 * drains what is on disk (queue and missed counter), QUEUE_KEEP calls are
 * appended as records, and only the newest QUEUE_CAP records survive.
 * Serialised against every other writer of dir by an exclusive flock on
 * the directory; the file is only ever replaced whole by rename, so
 * readers never see a torn line and a failed write (a full disk) leaves
 * it as it was. A symlink or other non-file in its place is refused.
 * Returns 0 or -1.
 */
int	queue_append(const char *dir, const char *sid,
	    const struct queue_call *, size_t n, struct err *);

/*
 * The session's records, oldest first, as a new JSON array: the newest
 * QUEUE_CAP lines that are JSON objects with a string "tool", whatever
 * else they hold (empty when the file is missing or blank; other lines,
 * and lines over QUEUE_LINE_MAX, are skipped). Never modifies anything.
 * Returns 0 or -1 (an unreadable file, a symlink, not a regular file).
 */
int	queue_peek(const char *dir, const char *sid, json_t **out,
	    struct err *);

/*
 * The file-name ids (queue_safe_id form, which queue_peek and
 * queue_missed take as they are) of every session with a queue file in
 * dir, sorted, as a new array of new strings (*n 0 and NULL when dir is
 * missing); free with queue_sessions_free. Takes no lock and changes
 * nothing. Returns 0 or -1 with err set (dir unreadable).
 */
int	queue_sessions(const char *dir, char ***ids, size_t *n, struct err *);
void	queue_sessions_free(char **, size_t);

/* Delete the counter then the queue (§4.5), under the directory lock. */
int	queue_drain(const char *dir, const char *sid, struct err *);

/* The missed-nudge counter: parseInt of the file, 0 when absent (§4.4). */
int	queue_missed(const char *dir, const char *sid);

/* Add one to the missed-nudge counter. Returns 0 or -1. */
int	queue_missed_bump(const char *dir, const char *sid, struct err *);

/*
 * The extraction payload (§4.7) for the session's records: compact JSON
 * with interactions, projectStore and globalStore, appended to out; each
 * interaction names the files it touched inside the worktree holding
 * project_dir (queue_files; none outside one). Returns 1 when it
 * appended, 0 when the queue is empty, -1 on error.
 */
int	queue_payload(const char *dir, const char *sid,
	    const char *project_store, const char *project_dir,
	    struct sbuf *out, struct err *);

/*
 * A nudge waiting for the session's next tool call (host-contracts C2:
 * Cursor's prompt hook cannot add context, its postToolUse can). put
 * replaces any earlier one; extraction marks an extraction nudge, whose
 * delivery counts as a missed nudge. take moves the text into out and
 * removes it, so of two concurrent takers only one gets it; it returns 1
 * when there was one, 0 when not, -1 on error.
 */
int	queue_pending_put(const char *dir, const char *sid, const char *text,
	    bool extraction, struct err *);
int	queue_pending_take(const char *dir, const char *sid, struct sbuf *out,
	    bool *extraction, struct err *);

/*
 * Remove what sessions left behind (§4.1 allows age-based cleanup; the
 * original has none, so a queue folder grows by a file or two per
 * session for ever): queue, counter and nudge files in dir not modified
 * for max_age seconds before now, and the temporary files of killed
 * writers (they hold tool outputs) and nudges a killed taker had claimed
 * after QUEUE_TMP_AGE. Under the directory lock, so a live session's
 * append is never cut in two. Returns the number removed, or -1 (then err
 * says why).
 */
#define QUEUE_MAX_AGE	(7 * 24 * 60 * 60)
int	queue_prune(const char *dir, long max_age, long now, struct err *);

/*
 * A JSON lexer that passes text through to out but keeps only the first
 * max bytes of each string, cutting only between characters, so the
 * result is valid JSON whenever the input is; input may come in pieces
 * of any size. The queue's readers and hook stdin (hook_read) use it to
 * bound what they hold. Start from { .state = QUEUE_CLIP_OUT }
 * (queue_clip.c).
 */
struct queue_clip {
	enum {
		QUEUE_CLIP_OUT, QUEUE_CLIP_STR, QUEUE_CLIP_ESC, QUEUE_CLIP_HEX,
	} state;
	int		hex;		/* hex digits still to come in \uXXXX */
	unsigned	code;		/* the \uXXXX read so far */
	bool		high;		/* the last unit kept opened a pair */
	bool		dropping;	/* past max: skip to the quote */
	size_t		kept;		/* bytes of this string kept */
};
void	queue_clip_feed(struct queue_clip *, const void *, size_t n,
	    size_t max, struct sbuf *out);

/* deriveTitle (§4.7): the title stored with a record (queue_record.c).
 * New string. */
char	*queue_title(const char *tool, const json_t *args);

/* summarizeArgs (§4.7): the payload's one-line args. New string. */
char	*queue_summary(const char *tool, const json_t *args);

/*
 * The files a call of tool with args read, edited or searched in
 * (Read/Edit/Write/MultiEdit/NotebookEdit paths, Grep/Glob's path; both
 * hosts' spellings), as anchors: relative to root (anchor_root), a
 * relative path taken from base, each once, those outside root left out.
 * A new array, or NULL when none (or root is NULL): the payload's
 * "files", which the fact extractor passes as anchors (issue 29).
 */
json_t	*queue_files(const char *tool, const json_t *args, const char *base,
	    const char *root);

#endif
