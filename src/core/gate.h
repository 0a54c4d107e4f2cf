/* gate.h — the one check every memory that arrives from outside passes (gate.c). */
#ifndef THATCH_CORE_GATE_H
#define THATCH_CORE_GATE_H

struct store_entry;

/* Size caps of one arriving memory (bytes). */
#define GATE_LABEL_MAX		1000
#define GATE_BRANCH_MAX		255
#define GATE_CONTENT_MAX	(256 * 1024)

/*
 * Check e, a memory that arrived from outside this machine (a teammate's
 * sync document, an imported record), against what a local
 * memory_remember could have stored: label, content and branch valid
 * UTF-8 within the caps above, no control in the label or branch, the
 * slug slug_make(label), a git-valid branch name, confidence 0 (absent)
 * or 1-10, created_at and updated_at ISO-8601 UTC times, anchors (if
 * any) that anchor_doc_check passes. A time after
 * now (ISO, as clock_iso writes it) is clamped to now in place, so a
 * future date never wins a merge. Returns NULL when e may be stored, else
 * the one-line reason it may not (static).
 */
const char	*gate_entry(struct store_entry *e, const char *now);

/* Whether s is a branch name git accepts (git check-ref-format --branch). */
int		 gate_branch_ok(const char *s);

#endif
