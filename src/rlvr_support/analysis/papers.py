"""The papers whose claims the study measures, defined once: each paper's id, short title and full title.

The ids number the study's source documents, which are not in the repository; readers know the papers
by title. So the claims table names a paper by its short title (`cite`), the results page gives the
full titles in a legend (`legend`), and a claims table written before this registry, which holds ids
(`000, 003`), is rendered through the same registry (`titled`, review/results_page.py).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Paper:
    short: str
    title: str


SUPPORT_RESHAPING = "000"
INVISIBLE_LEASH = "003"
SHARPENING_COLLAPSE = "004"
PAPERS = {
    SUPPORT_RESHAPING: Paper("Support reshaping", "Verifier-Induced Support Reshaping in On-Policy Optimization"),
    INVISIBLE_LEASH: Paper("Invisible Leash", "The Invisible Leash: Why RLVR May Not Escape Its Origin"),
    SHARPENING_COLLAPSE: Paper("Sharpening→collapse", "When Sharpening Becomes Collapse: Sampling Bias and "
                               "Semantic Coupling in RL with Verifiable Rewards"),
}
SEPARATOR = "; "  # between the papers of one claim; no short title holds it


def cite(*ids: str) -> str:
    """The `paper` cell of a claim made by the papers `ids`: their short titles."""
    unknown = [i for i in ids if i not in PAPERS]
    if unknown or not ids:
        raise ValueError(f"paper ids {unknown or list(ids)}: not in the registry of papers ({', '.join(PAPERS)})")
    return SEPARATOR.join(PAPERS[i].short for i in ids)


def titled(text: str) -> str:
    """A `paper` cell as the claims table now writes it: ids (`000, 003`, tables written before the
    registry) become short titles; short titles stay as they are; anything else is an error naming it."""
    parts = [p.strip() for p in text.replace(SEPARATOR.strip(), ",").split(",")]
    shorts = {p.short for p in PAPERS.values()}
    if all(p in PAPERS for p in parts):
        return cite(*parts)
    if all(p in shorts for p in parts):
        return text
    unknown = [p for p in parts if p not in PAPERS and p not in shorts]
    raise ValueError(f"paper cell {text!r}: {unknown} is neither a paper id ({', '.join(PAPERS)}) nor a short title "
                     "of analysis/papers.py")


def legend() -> list[str]:
    """One Markdown line per paper: its short title, then the full title."""
    return [f"- **{p.short}**: *{p.title}*" for p in PAPERS.values()]
