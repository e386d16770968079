"""rlvr-support: measure how RL with verifiable rewards reshapes a language model's support."""

__version__ = "0.1.0"
