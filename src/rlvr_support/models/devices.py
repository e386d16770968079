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


def model_devices(gpus: int, models: int) -> list[str]:
    """A device per model of an analysis job: `cpu` for a job without GPUs; else model i on GPU
    i mod gpus, so two 8B models share one 80-141 GB GPU (2 x 16 GB of bf16 weights plus one
    batch of activations) or take one GPU each where the job asked for two."""
    if gpus == 0:
        return ["cpu"] * models
    return [f"cuda:{i % gpus}" for i in range(models)]


def weights_dtype(name: str, device: str):
    """The torch dtype an analysis loads weights in: `auto` = bfloat16 on a GPU, float32 on CPU."""
    import torch

    if name == "auto":
        return torch.bfloat16 if str(device).startswith("cuda") else torch.float32
    dtypes = {"float32": torch.float32, "bfloat16": torch.bfloat16, "float16": torch.float16}
    if name not in dtypes:
        raise ValueError(f"resources.analyse.dtype: {name!r} is not one of auto, {', '.join(dtypes)}")
    return dtypes[name]
