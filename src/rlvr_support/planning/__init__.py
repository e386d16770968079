"""The study's plan before it runs: model shapes, GPUs, memory per GPU job and GRPO/sampling throughput."""
