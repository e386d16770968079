"""Real prompt sets from configured sources, in the same JSONL contract as the toy world.

`world.kind: datasets` lists, per task (math, if, joint), the sources that make up its
train and eval splits; `build_task_records(task, sources, seed)` turns them into records
`{id, task, prompt, answer, instruction_id_list, kwargs, split, source}` (see `formats`).
"""

from rlvr_support.data.sources.build import build_task_records

__all__ = ["build_task_records"]
