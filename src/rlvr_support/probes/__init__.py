"""Analyses that load and run models: base metrics, teacher-forced JS and perplexity, the opening and
single-token interventions, and the tables built from their run files."""
