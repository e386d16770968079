"""Which part of a response the verifiers score (`scoring.reasoning`: none | after_think).

Every task's verifier reads the same part, so this sits beside score.py rather than in one
verifier family: a math stage's code then covers no instruction checker.
"""

from __future__ import annotations

_THINK_END = "</think>"


def strip_reasoning(text: str, reasoning: str = "none") -> str:
    """Select the part of a response that the verifiers score.

    reasoning="none": the whole text.
    reasoning="after_think": the text after the last "</think>" (the whole text when
    there is none), then, if it contains "<answer>...</answer>", the content of the
    last such block (between the last "</answer>" and the "<answer>" before it). Reasoning models state constraints in their thinking; scoring
    only the final part keeps those drafts from counting for or against them.
    """
    if reasoning == "none":
        return text
    if reasoning != "after_think":
        raise ValueError(f"reasoning must be 'none' or 'after_think', got {reasoning!r}")
    cut = text.rfind(_THINK_END)
    if cut >= 0:
        text = text[cut + len(_THINK_END) :]
    # Last block = up to the last "</answer>", from the "<answer>" before it. Found
    # with rfind (a lazy regex would rescan to the end from every "<answer>").
    close = text.rfind("</answer>")
    if close >= 0:
        open_ = text.rfind("<answer>", 0, close)
        if open_ >= 0:
            text = text[open_ + len("<answer>") : close]
    return text
