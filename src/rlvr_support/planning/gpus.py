"""The GPU kinds the plan knows: memory, memory bandwidth, dense bf16 throughput and GPU-to-GPU bandwidth.

Datasheet figures (peak, not achieved): the throughput model (planning/throughput.py) multiplies them
by stated utilisations, which a pilot (cli/pilot.py) replaces with measurements. `resources.<kind>.gpu_type`
names one of these; `resources.<kind>.gpu_mem_gb` overrides its memory (a 40 GB A100, a MIG slice).

A card's nominal memory is not what the device reports: an H100 "80GB" reports 79.10 GiB (84.9 GB) to
`torch.cuda.mem_get_info` and in PyTorch's out-of-memory message ("GPU 0 has a total capacity of 79.10 GiB",
e.g. stas00/ml-engineering, debug notes), and vLLM takes its `gpu_memory_utilization` of that total. The memory
plan (planning/memory.py) divides the reported total; the GPU check (planning/plan_check.py) measures it.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class GPU:
    name: str
    mem_gb: float  # nominal memory, GB (1e9 bytes)
    hbm_tb_s: float  # memory bandwidth, TB/s
    bf16_tflops: float  # dense bf16 tensor-core peak, TFLOP/s (no sparsity)
    link_gb_s: float  # GPU-to-GPU bandwidth per direction (NVLink), GB/s
    source: str
    reported_gib: float | None = None  # what torch.cuda.mem_get_info reports as the total, GiB (None: mem_gb)
    reported_source: str = ""

    @property
    def total_gb(self) -> float:
        """The memory the device reports (GB, 1e9 bytes): what vLLM's gpu_memory_utilization multiplies and what
        every job on the GPU shares; the nominal memory where nothing better is known (a gpu_mem_gb override)."""
        return self.reported_gib * 2 ** 30 / 1e9 if self.reported_gib else self.mem_gb


GPUS = {
    "h100": GPU("NVIDIA H100 SXM5 80GB", 80, 3.35, 989.4, 450,
                "NVIDIA H100 Tensor Core GPU datasheet (SXM5: HBM3 3.35 TB/s, BF16 1,979 TFLOPS with sparsity, "
                "NVLink 900 GB/s bidirectional)",
                79.10, "PyTorch's out-of-memory message on H100 80GB: 'a total capacity of 79.10 GiB' (assumed)"),
    "h200": GPU("NVIDIA H200 SXM 141GB", 141, 4.8, 989.4, 450,
                "NVIDIA H200 Tensor Core GPU datasheet (SXM: HBM3e 4.8 TB/s, BF16 1,979 TFLOPS with sparsity, "
                "NVLink 900 GB/s bidirectional)",
                139.80, "PyTorch's out-of-memory message on H200: 'a total capacity of 139.80 GiB' (assumed)"),
    "a100-80gb": GPU("NVIDIA A100 SXM4 80GB", 80, 2.039, 312, 300,
                     "NVIDIA A100 Tensor Core GPU datasheet (SXM4 80GB: HBM2e 2,039 GB/s, BF16 312 TFLOPS dense, "
                     "NVLink 600 GB/s bidirectional)",
                     79.15, "PyTorch's out-of-memory message on A100 80GB: 'a total capacity of 79.15 GiB' (assumed)"),
    "a100-40gb": GPU("NVIDIA A100 SXM4 40GB", 40, 1.555, 312, 300,
                     "NVIDIA A100 Tensor Core GPU datasheet (SXM4 40GB: HBM2 1,555 GB/s, BF16 312 TFLOPS dense, "
                     "NVLink 600 GB/s bidirectional)",
                     39.38, "PyTorch's out-of-memory message on A100 40GB: 'a total capacity of 39.38 GiB' (assumed)"),
}
DEFAULT_GPU = "h100"


def gpu_of(resources: dict) -> GPU:
    """The GPU a `resources.<kind>` entry runs on: its gpu_type (default h100), memory overridden by gpu_mem_gb."""
    name = resources.get("gpu_type", DEFAULT_GPU)
    if name not in GPUS:
        raise ValueError(f"gpu_type {name!r} is not known (known: {', '.join(GPUS)})")
    gpu = GPUS[name]
    if resources.get("gpu_mem_gb") is not None:
        from dataclasses import replace

        # the stated memory is all the plan counts on (a MIG slice reports less than its name says)
        gpu = replace(gpu, mem_gb=float(resources["gpu_mem_gb"]), reported_gib=None,
                      reported_source="resources.<kind>.gpu_mem_gb")
    return gpu
