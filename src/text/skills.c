/*
 * skills.c — the skills thatch ships, as SKILL.md texts.
 *
 * The texts are authored as Markdown in src/text/skills/<name>.md, where
 * they read and diff like the files users get; scripts/gen-skills turns
 * them into the C rows included below at build time, resolving the shared
 * review framework (${REVIEW_COMMON}) so that nothing is templated at run
 * time (hosts-hooks-cli §8.1). The order and the shared/opencode split
 * come from src/text/skills/skills.list.
 */
#include "text/skills.h"

const struct text_skill text_skills[] = {
#include "skills.inc"
};

const size_t text_nskills = sizeof(text_skills) / sizeof(text_skills[0]);
