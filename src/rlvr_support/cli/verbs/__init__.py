"""The CLI's verbs, one module each (cli/main.py finds and registers them)."""
