/* skills.h — the skills thatch ships, as SKILL.md texts (skills.c). */
#ifndef THATCH_TEXT_SKILLS_H
#define THATCH_TEXT_SKILLS_H

#include <stdbool.h>
#include <stddef.h>

/*
 * One skill (hosts-hooks-cli §8): its directory name and the complete
 * SKILL.md, frontmatter included. opencode_only marks the skills that
 * need sub-agent dispatch and are not installed for Claude Code or Cursor.
 */
struct text_skill {
	const char	*name;
	bool		 opencode_only;
	const char	*content;
};

/* Every skill, in install order (§8.2). */
extern const struct text_skill text_skills[];
extern const size_t text_nskills;

#endif
