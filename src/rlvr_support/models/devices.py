"""Which device a job runs on, and a check at job start that it sees the GPUs it asked for.

A SLURM job that asked for GPUs but landed without them (a wrong partition, a GRES typo, an
empty CUDA_VISIBLE_DEVICES) would otherwise train on CPU for hours, or crash deep inside
TRL; `require_gpus` stops it in its first second with a message that says why.
"""

from __future__ import annotations

import os


class GPUUnavailableError(RuntimeError):
    pass


def visible_gpu_count() -> int:
    import torch

    return torch.cuda.device_count() if torch.cuda.is_available() else 0


def require_gpus(n: int) -> int:
    """Return the number of visible GPUs; raise if fewer than `n` are visible (n = 0 asks for none)."""
    if n < 0:
        raise ValueError(f"--gpus must be >= 0, got {n}")
    if n == 0:
        return visible_gpu_count()
    seen = visible_gpu_count()
    if seen < n:
        import torch

        cvd = os.environ.get("CUDA_VISIBLE_DEVICES")
        slurm = {k: os.environ[k] for k in ("SLURM_JOB_ID", "SLURM_GPUS", "SLURM_GPUS_ON_NODE",
                                            "SLURM_JOB_GPUS", "SLURM_JOB_PARTITION") if k in os.environ}
        cuda = getattr(torch.version, "cuda", None)
        raise GPUUnavailableError(
            f"this job asked for {n} GPU(s) but sees {seen}: "
            f"CUDA_VISIBLE_DEVICES={cvd!r}, torch {torch.__version__} built "
            f"{'with CUDA ' + cuda if cuda else 'without CUDA (a CPU-only wheel)'}"
            + (f", SLURM {slurm}" if slurm else ", not inside a SLURM job")
            + ". Check the partition and the `resources` section of the config, "
              "or set its gpu to 0 to run on CPU.")
    return seen


def torch_device() -> str:
    """'cuda' when a GPU is visible, else 'cpu': the toy study stays on CPU wherever it runs without GPUs."""
    return "cuda" if visible_gpu_count() > 0 else "cpu"
