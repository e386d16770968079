"""Response openings (first m tokens) of each checkpoint against the base, per eval set and benchmark.

Source: the support-reshaping paper: RLVR mostly *re-ranks* openings the base already produced, and IF-RLVR
moves math answers from step-by-step openings to direct answers.  Per chain, eval set and
benchmark (seeds pooled: a chain's opening distribution is the mixture of its seeds' samples):

* the rank-shift table of metrics.openings.opening_rank_shift over the union of the top
  openings of base and checkpoint (empirical probability and rank under each, and whether
  the opening occurs at all in the base's samples, ``in_base_support``);
* ``in_base_mass``: the share of the checkpoint's samples whose opening occurs in the base's
  samples (mean over prompts of the per-prompt share; CI over prompts and seeds);
* the style of each response (toy world: the first word, ``step`` / ``so`` / ``answer``
  or ``other``), as per-prompt shares with the paired difference to the base, pooled over RL
  seeds (``seed`` = ``all``) and for each seed alone (the claims' seed-stability table reads these).

Openings are read from the samples that kept their token ids (``sampling.token_arrays``);
styles, read from the text, from every sample. Each checkpoint is compared with the base in one unit
and one tokenisation on both sides (``unit``: ``tokens`` or ``words``; ``tokenizer``: whose tokens):

* an imported label that names a tokenizer (``imports.<label>.tokenizer``, or its ``model``'s): both
  sides' response texts split by that tokenizer (imports/tokenizers.py ``text_token_ids``), stored ids
  left aside (``tokenizer``: the label). A tokenizer's split of a text is not always the sequence a model
  sampled (a toy model's mid-response special tokens, a first token without its space): the label's
  tokens can only come from its text, so the base's are taken from its text too, whatever vocabulary
  either side's stored ids are in (an imported base has no tokenizer at all);
* otherwise, both sides with token ids: the ids as sampled, in the base's vocabulary (``base``);
* otherwise (an import without token ids or tokenizer): first words, on both sides (``tokenizer`` empty).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from rlvr_support.storage.atomic import read_samples
from rlvr_support.metrics.bootstrap import bootstrap_ci_grouped
from rlvr_support.metrics.entropy import answer_entropy, mean_per_prompt
from rlvr_support.metrics.openings import opening_rank_shift, openings
from rlvr_support.data.toyworld.words import STYLES
from rlvr_support.imports.tokenizers import text_token_ids
from rlvr_support.analysis.benchmarks import benchmark_column, benchmarks_in, split_benchmarks, with_token_arrays
from rlvr_support.analysis.resample import paired_grouped_diff
from rlvr_support.analysis.runs import by_chain, relation
from rlvr_support.analysis.scores import ScoreFile

STYLE_LABELS = (*STYLES, "other")


def opening_style(text) -> str:
    """The toy world's solution style of a response: its first word (quotes and case ignored)."""
    for w in str(text or "").split():
        w = w.strip('"').lower()
        if w:
            return w if w in STYLES else "other"
    return "other"


def key_str(key) -> str:
    return " ".join(str(t) for t in key)


def word_openings(texts, m: int) -> list[tuple[str, ...]]:
    """Each response's first m whitespace-separated words: the opening of samples without token ids."""
    return [tuple(str(t or "").split()[:m]) for t in texts]


def _decode(tokenizer, key) -> str:
    return tokenizer.decode(list(key), skip_special_tokens=False) if tokenizer is not None else key_str(key)


def token_rows(samples: pd.DataFrame, where: str, eval_set: str) -> pd.DataFrame:
    """The samples that kept their token ids (openings are read from them); every benchmark of
    `samples` must have some."""
    rows = with_token_arrays(samples)
    missing = [b for b in benchmarks_in(samples, eval_set) if b not in set(benchmark_column(rows, eval_set))]
    if missing:
        raise ValueError(f"{where}: benchmark {', '.join(map(repr, missing))} has no sample with token arrays, "
                         "which openings need")
    return rows


def text_openings(tokenizer, texts, m: int) -> list[tuple[int, ...]]:
    """Each response's first m tokens as `tokenizer` splits its text: the openings of samples that came as text."""
    return openings(text_token_ids(tokenizer, list(texts)), m)


def openings_tables(files: list[ScoreFile], *, m: int, top: int, n_boot: int, ci: float, seed: int, tokenizer=None,
                    label_tokenizers: dict | None = None) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """(rank shift rows, per chain summary, style shares) from sample files of every checkpoint, per
    benchmark. Openings read the samples with token arrays; styles (from the text) read every sample.
    `tokenizer`: the base's (it decodes the openings); `label_tokenizers`: {imported label: its tokenizer}
    (module doc: which tokens each comparison counts)."""
    label_tokenizers = label_tokenizers or {}
    samples: dict[tuple[str, str, str], list[tuple[str, pd.DataFrame]]] = {}
    for (chain, eval_set), g in by_chain(files).items():
        for f in g:
            df = read_samples(f.path).sort_values(["prompt_id", "sample_idx"], kind="stable")
            for bench, part in split_benchmarks(df, eval_set).items():
                samples.setdefault((chain, eval_set, bench), []).append((str(f.path), part, f.seed))
    shift_rows, summary_rows, style_rows = [], [], []
    for (chain, eval_set, bench), files_runs in samples.items():
        if ("base", eval_set, bench) not in samples:
            raise ValueError(f"no base samples for eval set {eval_set!r}, benchmark {bench!r}")
        runs = [r for _, r, _ in files_runs]
        base_path, base, _ = samples[("base", eval_set, bench)][0]
        label_tok = label_tokenizers.get(chain) if chain != "base" else None
        if label_tok is not None:
            # one function of the text on both sides: the label's tokenizer splits its responses and the base's
            unit, tokens_of, decoder = "tokens", chain, label_tok
            tok_runs = runs
            base_keys = text_openings(label_tok, base["text"], m)
            keys_by_seed = [text_openings(label_tok, r["text"], m) for r in runs]
        elif all(len(with_token_arrays(r)) for r in [*runs, base]):
            unit, tokens_of, decoder = "tokens", "base", tokenizer
            tok_runs = [token_rows(r, p, eval_set) for p, r, _ in files_runs]
            base_keys = openings(list(token_rows(base, base_path, eval_set)["token_ids"]), m)
            keys_by_seed = [openings(list(r["token_ids"]), m) for r in tok_runs]
        else:
            # an import without token ids or tokenizer: first words, on both sides
            unit, tokens_of, decoder = "words", "", None
            tok_runs = runs
            base_keys = word_openings(base["text"], m)
            keys_by_seed = [word_openings(r["text"], m) for r in runs]
        decode = _decode if unit == "tokens" else (lambda _tokenizer, key: key_str(key))
        base_set = set(base_keys)
        pooled = [k for ks in keys_by_seed for k in ks]
        if chain != "base":
            shift = opening_rank_shift(base_keys, pooled, top)
            shift.insert(0, "opening_text", [decode(decoder, o) for o in shift["opening"]])
            shift["opening"] = [key_str(o) for o in shift["opening"]]
            shift.insert(0, "benchmark", bench)
            shift.insert(0, "eval_set", eval_set)
            shift.insert(0, "chain", chain)
            shift_rows.append(shift)
        in_base = [mean_per_prompt(r["prompt_id"].to_numpy(str), np.array([k in base_set for k in ks], float))[1]
                   for r, ks in zip(tok_runs, keys_by_seed)]
        point, low, high, spread = bootstrap_ci_grouped(in_base, n_boot=n_boot, ci=ci, seed=seed)
        top_key = pd.Series(pooled).value_counts().index[0] if pooled else ()
        summary_rows.append({
            "chain": chain, "eval_set": eval_set, "benchmark": bench,
            "relation": relation(chain, eval_set) if chain != "base" else "",
            "m": m, "unit": unit, "tokenizer": tokens_of,
            "n_seeds": len(runs), "n_samples": len(pooled), "n_openings": len(set(pooled)),
            "opening_entropy": answer_entropy([key_str(k) for k in pooled]),
            "top_opening": decode(decoder, top_key), "top_in_base_support": top_key in base_set,
            "in_base_mass": point, "in_base_mass_lo": low, "in_base_mass_hi": high})
        base_styles = _style_shares(base)
        for style in STYLE_LABELS:
            vals = [_style_shares(r)[style] for r in runs]
            point, low, high, spread = bootstrap_ci_grouped(vals, n_boot=n_boot, ci=ci, seed=seed)
            d = (0.0, 0.0, 0.0) if chain == "base" else paired_grouped_diff(
                base_styles[style], vals, n_boot=n_boot, ci=ci, seed=seed)[:3]
            style_rows.append({"chain": chain, "eval_set": eval_set, "benchmark": bench, "seed": "all",
                               "style": style, "n_seeds": len(runs),
                               "share": point, "share_lo": low, "share_hi": high,
                               "diff": d[0], "diff_lo": d[1], "diff_hi": d[2]})
            # each RL seed alone too, for the claims' seed-stability table
            for (_, _, rl_seed), v in zip(files_runs, vals):
                if rl_seed is None:
                    continue
                point, low, high, _ = bootstrap_ci_grouped([v], n_boot=n_boot, ci=ci, seed=seed)
                d = paired_grouped_diff(base_styles[style], [v], n_boot=n_boot, ci=ci, seed=seed)[:3]
                style_rows.append({"chain": chain, "eval_set": eval_set, "benchmark": bench, "seed": str(rl_seed),
                                   "style": style, "n_seeds": 1, "share": point, "share_lo": low, "share_hi": high,
                                   "diff": d[0], "diff_lo": d[1], "diff_hi": d[2]})
    shift = pd.concat(shift_rows, ignore_index=True) if shift_rows else pd.DataFrame()
    return shift, pd.DataFrame(summary_rows), pd.DataFrame(style_rows)


def _style_shares(samples: pd.DataFrame) -> dict[str, np.ndarray]:
    """{style: per-prompt share of samples in that style}, prompts sorted by id."""
    styles = [opening_style(t) for t in samples["text"]]
    ids = samples["prompt_id"].to_numpy(str)
    return {s: mean_per_prompt(ids, np.array([x == s for x in styles], float))[1] for s in STYLE_LABELS}
