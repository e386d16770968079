"""The weights and the tokenizer an imported label's samples came from: `imports.<label>.model` and
`imports.<label>.tokenizer`.

    imports:
      grpo-step200:                     # vLLM outputs of a run trained elsewhere, and its weights
        eval_sets: {math: {format: vllm_outputs, files: ["evals/grpo/math.jsonl"]}}
        model: {kind: hf, path: org/grpo-step200, revision: <40-hex commit>}
      lmeval-rl:                        # lm-eval text only: openings in the first tokens of this tokenizer
        eval_sets: {math: {format: lm_eval, files: ["evals/rl/samples_math_*.jsonl"]}}
        tokenizer: {path: org/base-model, revision: <40-hex commit>}

With `model:` the label is also a checkpoint with weights: an external checkpoint of the study's base
(`checkpoints:`, config/checkpoints.py), so every analysis that runs a model covers it like one (JS, the
opening intervention, perplexity; `analysis.large_k` and `analysis.single_token` may name it), while its
samples still come from its files (workflow/rules/imports.smk). The import job tokenizes the responses of
a source without token ids with the model's tokenizer, so JS and the intervention have token sequences to
teacher-force and to take openings from, as they have for a sampled checkpoint.

A label with a tokenizer (its `tokenizer:`, else its model's) has its openings counted in that tokenizer's
first tokens instead of first words (analysis/openings_table.py). Without `model:` the analyses that run a
model leave the label out, and a key that names it for one is a config error.

Here, not in config/checkpoints.py: that module is part of every job's code (lineage/job_code.py).
"""

from __future__ import annotations

from pathlib import Path

from rlvr_support.config.checkpoints import HUB_ID, ONE_MODEL_BASE, check_checkpoint_path, remote_code_problem
from rlvr_support.config.imports import ImportConfigError, import_labels, imported_base

# a folder holds a tokenizer when it has one of these (what transformers' AutoTokenizer reads)
TOKENIZER_FILES = ("tokenizer.json", "tokenizer_config.json", "tokenizer.model", "vocab.json", "vocab.txt")
# the analyses that name the checkpoints they sample from (analysis.<part>.checkpoints)
NAMED_MODEL_ANALYSES = ("large_k", "single_token")


def import_models(config: dict) -> dict[str, dict]:
    """{label: spec} of the imported labels with a `model:`, in the config's order: each as an external
    checkpoint of the one-model study's base (a `checkpoints:` entry, which the `external_checkpoint` rule
    declares by its manifest)."""
    entries = config.get("imports") or {}
    return {label: {**entries[label]["model"], "base": ONE_MODEL_BASE}
            for label in import_labels(config) if entries[label].get("model")}


def import_tokenizers(config: dict) -> dict[str, dict]:
    """{label: {path, revision}} of the imported labels that name a tokenizer of their own (`tokenizer:`)."""
    entries = config.get("imports") or {}
    return {label: dict(entries[label]["tokenizer"]) for label in import_labels(config)
            if entries[label].get("tokenizer")}


def is_hub_id(path: str) -> bool:
    """Whether `path` names a hub repository (org/name) rather than a folder."""
    return (not Path(path).expanduser().exists() and not path.startswith((".", "/", "~"))
            and HUB_ID.match(path) is not None)


def tokenizer_path_problem(path: str) -> str | None:
    """Why `path` is neither a tokenizer folder (one of TOKENIZER_FILES, no custom code) nor a hub id, or None."""
    p = Path(path).expanduser()
    if p.exists() or path.startswith((".", "/", "~")):
        if not p.exists():
            return f"{path} does not exist"
        if not p.is_dir():
            return f"{path} is not a directory"
        if not any((p / name).is_file() for name in TOKENIZER_FILES):
            return f"{path} has no tokenizer files (one of {', '.join(TOKENIZER_FILES)})"
        return remote_code_problem(p)
    if not HUB_ID.match(path):
        return f"{path!r} is neither a tokenizer folder nor a hub id (org/name)"
    return None


def check_import_models(config: dict) -> None:
    """What `model:` and `tokenizer:` of the imported labels must satisfy before any job, and the keys that ask
    for a model analysis of an imported label (each an ImportConfigError naming the key)."""
    entries = config.get("imports") or {}
    labels = import_labels(config)
    for label in labels:
        model, tokenizer = entries[label].get("model"), entries[label].get("tokenizer")
        where = f"imports.{label}"
        if model:
            if imported_base(config):
                raise ImportConfigError(
                    f"{where}.model: the study's base is imported (`base: {{kind: import}}`) and has no weights, and "
                    "the analyses that run a model compare it with the base's (JS, the intervention, single tokens); "
                    "give the base's weights (`base: {kind: hf, ...}`) to analyse this label's model")
            if model["kind"] != "hf" and "revision" in model:
                raise ImportConfigError(f"{where}.model.revision: only a hub checkpoint (kind: hf) has a revision")
            if problem := check_checkpoint_path(model["kind"], model["path"]):
                raise ImportConfigError(f"{where}.model.path: cannot read the checkpoint: {problem}")
            if tokenizer:
                raise ImportConfigError(
                    f"{where}.tokenizer: the label's `model` brings its own tokenizer, whose tokens JS and the "
                    "intervention feed to the model; leave `tokenizer` out")
        if tokenizer:
            if problem := tokenizer_path_problem(tokenizer["path"]):
                raise ImportConfigError(f"{where}.tokenizer.path: cannot read the tokenizer: {problem}")
            if "revision" in tokenizer and not is_hub_id(tokenizer["path"]):
                raise ImportConfigError(f"{where}.tokenizer.revision: only a hub tokenizer (org/name) has a revision")
    without_model = [label for label in labels if not entries[label].get("model")]
    for part in NAMED_MODEL_ANALYSES:
        named = [c for c in (config["analysis"].get(part) or {}).get("checkpoints") or [] if c in without_model]
        if named:
            raise ImportConfigError(
                f"analysis.{part}.checkpoints: {', '.join(named)} is imported without a model: this analysis samples "
                f"from a checkpoint's weights; give imports.{named[0]}.model (the weights its samples came from) or "
                "leave it out")
    traced = [c for c in (config.get("trajectory") or {}).get("chains") or [] if c in labels]
    if traced:
        raise ImportConfigError(
            f"trajectory.chains: {', '.join(traced)} is imported: a trajectory's points are the weights a trained "
            "stage kept on its way, which an imported label has not (an external run's are its `checkpoints:` "
            "entry's `steps`)")
