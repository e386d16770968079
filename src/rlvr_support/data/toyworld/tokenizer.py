"""A word-level tokenizer for the toy world, built locally with Hugging Face `tokenizers`.

SentencePiece-style spaces (the `▁` marker) make decoding exact: words are `▁word`, numbers
are `▁` followed by one token per digit, so `answer : 133` round-trips as text that the
real verifiers read. The vocabulary is fixed by the lexicon, not learned from a corpus, so
it does not depend on which prompts a seed draws.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tokenizers import Tokenizer, decoders, models, pre_tokenizers, processors

from rlvr_support.data.toyworld.words import all_words

if TYPE_CHECKING:
    from transformers import PreTrainedTokenizerFast

SPECIALS = ("<pad>", "<bos>", "<eos>", "<unk>")
SPACE = "\u2581"


def build_word_tokenizer() -> Tokenizer:
    """The tokenizer itself (`tokenizers`, BOS added), without the transformers wrapper: config
    validation counts prompt tokens with it, without the second it takes to import transformers."""
    vocab = {tok: i for i, tok in enumerate(SPECIALS)}
    for tok in [SPACE, *"0123456789", *(SPACE + w for w in all_words())]:
        vocab.setdefault(tok, len(vocab))
    tok = Tokenizer(models.WordLevel(vocab=vocab, unk_token="<unk>"))
    tok.pre_tokenizer = pre_tokenizers.Sequence([
        pre_tokenizers.Metaspace(replacement=SPACE, prepend_scheme="always", split=True),
        pre_tokenizers.Digits(individual_digits=True),
    ])
    tok.decoder = decoders.Metaspace(replacement=SPACE, prepend_scheme="always", split=True)
    tok.post_processor = processors.TemplateProcessing(
        single="<bos> $A", pair="<bos> $A $B", special_tokens=[("<bos>", vocab["<bos>"])])
    return tok


def build_tokenizer() -> PreTrainedTokenizerFast:
    from transformers import PreTrainedTokenizerFast

    return PreTrainedTokenizerFast(
        tokenizer_object=build_word_tokenizer(), bos_token="<bos>", eos_token="<eos>", pad_token="<pad>",
        unk_token="<unk>", padding_side="left", model_max_length=256, clean_up_tokenization_spaces=False,
    )
