/* tok.h — the BERT WordPiece tokenizer of Hugging Face tokenizers (tok.c). */
#ifndef THATCH_EMBED_TOK_H
#define THATCH_EMBED_TOK_H

#include <stddef.h>
#include <stdint.h>

struct err;

/* A loaded vocabulary with its normalisation settings. Opaque. */
struct tok;

/*
 * Load the tokenizer of the model folder dir: vocab.txt with
 * tokenizer_config.json when vocab.txt exists (fast), else tokenizer.json.
 * Tokenizers other than BERT WordPiece are refused with a message naming
 * what was found. Free with tok_free.
 */
int	tok_new(const char *dir, struct tok **, struct err *);
void	tok_free(struct tok *);

/* One more than the largest token id. */
int	tok_vocab_size(const struct tok *);

/*
 * Tokenize len bytes of UTF-8 as Hugging Face (and transformers.js) do for
 * one sequence: special-token strings split first and map to themselves;
 * the rest is BertNormalizer, BertPreTokenizer and WordPiece; then [CLS]
 * ... [SEP], truncated to max ids (max >= 2) the way transformers.js does
 * it: after the special tokens, so a text that overflows ends without
 * [SEP]. Invalid UTF-8 reads as U+FFFD. Writes the ids to ids[max] and
 * returns how many.
 */
int	tok_encode(const struct tok *, const char *, size_t, int32_t *ids,
	    int max);

#endif
