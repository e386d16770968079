"""The key of a prompt that has no document id in its source: a hash of its normalised text.

Formats without an id (verl's dumps, TRL's completion logs, a plain JSONL without an id field,
vLLM outputs saved without a request id) match prompts across entries by this key, so the same
question imported from a verl dump and from a TRL log gets the same prompt id. Normalised as:
the last user turn of a chat-templated prompt (`user_turn`: tools log the templated string, the
same decoded without special tokens, or the bare message), Unicode NFC (a composed and a decomposed "é" are one prompt), every run of whitespace one space
(a tokenizer's decode may turn "\\n\\n" into "\\n" or pad spaces), stripped at both ends.

The key is the first 16 hex digits (64 bits) of the sha256: by the birthday bound two of a
million prompts collide with probability about 3e-8, and a collision is caught anyway, as two
texts under one key (`import_job`), while a short key keeps prompt ids readable in tables.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata

KEY_HEX_DIGITS = 16
_SPACES = re.compile(r"\s+")
# The last user turn of a prompt that went through a chat template, as the tools log it: vLLM and lm-eval
# the templated string (ChatML: Qwen, SmolLM; Llama 3), verl the same decoded without its special tokens
# (ChatML's `system\n...\nuser\n...\nassistant`); TRL and lighteval log the user message itself.
_USER_TURNS = (
    re.compile(r"<\|im_start\|>user\n(.*?)<\|im_end\|>", re.S),
    re.compile(r"<\|start_header_id\|>user<\|end_header_id\|>\n\n(.*?)<\|eot_id\|>", re.S),
    re.compile(r"\A(?:system\n.*?\n)?user\n(.*)\nassistant\n?\Z", re.S),
)


def user_turn(text: str) -> str:
    """The last user message of a chat-templated prompt (ChatML, Llama 3, or ChatML decoded without its
    special tokens); any other text as it is. So one question sent through a chat template by vLLM and
    logged as a bare message by TRL is one prompt."""
    for pattern in _USER_TURNS:
        turns = pattern.findall(text)
        if turns:
            return turns[-1]
    return text


def normalise_prompt(text: str) -> str:
    """The text that `text_key` hashes: the user turn of a chat-templated prompt, NFC, whitespace runs
    collapsed to one space, stripped."""
    return _SPACES.sub(" ", unicodedata.normalize("NFC", user_turn(text))).strip()


def text_key(text: str) -> str:
    """A prompt's key from its text alone (module doc): 16 hex digits of sha256(normalised text)."""
    return hashlib.sha256(normalise_prompt(text).encode("utf-8")).hexdigest()[:KEY_HEX_DIGITS]
