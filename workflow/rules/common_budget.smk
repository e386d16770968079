# Input functions of budget.smk: what its rules read (those several stages share: common_dag.smk).


def get_budget_prompts():
    """The prompt files the budget counts eval prompts in: the eval sets' and the trained tasks'."""
    return [f"{DATA}/prompts/{t}.jsonl" for t in used_tasks()]


def get_budget_cfg():
    """The keys the budget reads (planning/budget.py budget_config), as JSON."""
    return compact_json(budget_config(config))
