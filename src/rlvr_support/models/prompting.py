"""How a checkpoint is prompted: `raw` (the prompt text as is: the toy world, base models) or
`chat` (one user message through the tokenizer's chat template: instruct models).

The format is a property of the model, set in the config's `base.prompt_format`, written
into the base manifest and copied into every checkpoint trained from it, so sampling and
GRPO read it from the checkpoint they load.
"""

from __future__ import annotations

import json
from pathlib import Path

FORMATS = ("raw", "chat")


def prompt_format(manifest_or_dir: str | Path) -> str:
    """The checkpoint's prompt format (manifests written before this field existed: raw)."""
    p = Path(manifest_or_dir)
    if p.suffix != ".json":
        return "raw"
    fmt = json.loads(p.read_text()).get("prompt_format", "raw")
    if fmt not in FORMATS:
        raise ValueError(f"{p}: prompt_format {fmt!r} is not one of {FORMATS}")
    return fmt


def as_messages(prompt: str) -> list[dict]:
    """TRL's conversational prompt form (GRPOTrainer applies the chat template itself)."""
    return [{"role": "user", "content": prompt}]


def render(tokenizer, prompts: list[str], fmt: str) -> list[str]:
    """Prompt strings for generation: chat prompts end with the assistant turn's opening."""
    if fmt == "raw":
        return list(prompts)
    if fmt != "chat":
        raise ValueError(f"prompt_format {fmt!r} is not one of {FORMATS}")
    if not getattr(tokenizer, "chat_template", None):
        raise ValueError("prompt_format chat: the model's tokenizer has no chat template")
    return [tokenizer.apply_chat_template(as_messages(p), tokenize=False, add_generation_prompt=True) for p in prompts]
