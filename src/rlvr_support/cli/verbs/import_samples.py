"""`python -m rlvr_support import-samples`: read another tool's samples into this project's files.

Writes the samples file (samples schema), the prompts JSONL the `score` verb reads, and the
source's own scores (for `agreement-table`); nothing when any file is bad (imports/import_job.py).
Every `--files` path is an input, so the sidecar records each source file's sha256 and an edited
source fails `audit` (lineage/provenance.py). A hub entry's files come through `--files-manifest`, the
manifest `import-hub-files` wrote: it is the input the sidecar records, and each file it lists is checked
against its sha256 there before it is read (imports/hub_files.py). The lead's `import_samples` rule runs
it, with `--verifiers` (an `if` or `joint` entry's prompts are validated by the instructions family).
"""

from __future__ import annotations

from rlvr_support.cli.args import json_arg as _json
from rlvr_support.cli.verifier_args import add_verifier_args


def cmd_import_samples(a):
    from rlvr_support.imports.import_job import import_entry
    from rlvr_support.imports.study_prompts import StudyPrompts

    study = StudyPrompts(a.study_prompts, a.match) if a.study_prompts else None
    if a.files_manifest:
        from rlvr_support.imports.hub_files import manifest_files

        files = manifest_files(a.files_manifest)
    else:
        files = a.files
    tokenizer = None
    if a.tokenizer:  # an imported label with a model: its text-only responses get the model's tokens
        from rlvr_support.imports.tokenizers import tokenizer_of

        tokenizer = tokenizer_of(a.tokenizer)
    s = import_entry(a.spec, files, a.out, a.out_prompts, a.out_source, study=study, tokenizer=tokenizer)
    print(f"{s['samples']} samples of {s['prompts']} prompts imported (n per prompt {s['n_min']}..{s['n_max']}); "
          f"{s['scored']} with a source score, {s['with_tokens']} with token arrays "
          f"({s['tokenized']} of them tokenized from their text)")


def register(verb) -> None:
    from rlvr_support.imports.formats import FORMATS

    s = verb("import-samples", cmd_import_samples,
             "Import samples written by another tool (lm-eval, lighteval, vLLM, OpenAI batch, verl, TRL, plain JSONL).")
    s.add_argument("--spec", type=_json, required=True,
                   help="the import entry as JSON: format (" + " | ".join(FORMATS) + "), benchmark, task (math | if | "
                        "joint), and optionally fields {prompt, response, id, score, sample, answer, "
                        "instruction_id_list, kwargs} (dotted paths), prompt_key (id | text), source_score, filter, "
                        "step, docs {file, id}, custom_id_sample_sep")
    source = s.add_mutually_exclusive_group(required=True)
    source.add_argument("--files", nargs="+", help="the source files, read in this order")
    source.add_argument("--files-manifest",
                        help="instead of --files: the manifest of a hub entry's fetched files (`import-hub-files`); "
                             "its files are read in its order, each checked against its sha256 first")
    s.add_argument("--out", required=True, help="the samples file (.parquet)")
    s.add_argument("--out-prompts", required=True, help="the prompts JSONL for `score`")
    s.add_argument("--out-source", required=True, help="the source's own scores (.parquet)")
    s.add_argument("--study-prompts", help="a mixed study: the study's prompts of this eval set; the samples get their "
                                           "ids, and a prompt set that differs is an error (imports/study_prompts.py)")
    s.add_argument("--match", choices=("text", "id"), default="text",
                   help="with --study-prompts: match prompts by their normalised text (default) or the source's key")
    s.add_argument("--tokenizer", help="an imported label's model manifest (imports.<label>.model): responses "
                                       "without token ids get its tokenizer's split of their text, and a source's "
                                       "own ids must lie in its vocabulary")
    add_verifier_args(s)  # the prompt records are checked as the scorer checks them: IF ones by the instructions family
