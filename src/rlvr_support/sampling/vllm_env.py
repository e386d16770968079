"""Where vLLM is: the interpreter of the vLLM environment, for the sampling backend and for GRPO's rollouts.

vLLM lives in its own environment (GPU: envs/vllm.yaml; CPU: .venv-vllm, `make setup-vllm`). This is its own
module so that the train job, which may re-run itself there, does not hash the sampling backend's code.
"""

from __future__ import annotations

import os
from pathlib import Path


def vllm_python() -> str | None:
    """The interpreter that has vLLM: $RLVR_VLLM_PYTHON, else <repo>/.venv-vllm/bin/python, else None."""
    env = os.environ.get("RLVR_VLLM_PYTHON")
    if env:
        return env
    repo_venv = Path(__file__).resolve().parents[3] / ".venv-vllm" / "bin" / "python"
    return str(repo_venv) if repo_venv.exists() else None
