"""The study's plan before it runs: model shapes, GPUs, memory per GPU job, GRPO/sampling throughput and
the budget."""
