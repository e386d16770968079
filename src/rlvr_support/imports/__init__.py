"""Samples researchers already have, read into this project's samples schema (issue 36).

Other tools' outputs (lm-evaluation-harness samples, lighteval details, vLLM RequestOutputs,
OpenAI batch output, verl dumps, TRL GRPO completion logs, a plain JSONL) become a samples file
like the pipeline's own, so every samples-only analysis (pass@k, best@k, coverage, support,
answer entropy, openings) runs on them, scored by this project's verifiers.

The record flow:

    source file --formats/<format>.read--> ImportedPrompt (records.py: one prompt, its n responses,
        the source's scores and token arrays when it has them)
      --import_job.import_entry--> samples parquet (SAMPLE_SCHEMA), prompts JSONL
        (task_fields.prompt_record: the scorer's prompt record), source scores parquet
      --scoring.score.score_samples (the `score` verb)--> scores
      --agreement.verifier_agreement--> where the source's score and ours differ

Prompts are keyed by the source's document id where it has one, else by `prompt_keys.text_key`
(sha256 of the normalised text); formats/__init__.py PROMPT_KEYS states it per format. The
verbs are `import-samples` and `agreement-table` (cli/verbs/).
"""
