"""Tools a user runs on a finished results tree: audit (with its table recomputation), compare, why, the
results page."""
