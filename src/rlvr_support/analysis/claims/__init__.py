"""The claims table: one row per claim of the three papers, measured on this study's runs.

claim.py holds what a claim is (`Claim`: its words, papers, expected sign, the input table it
reads and how it measures its rows), study.py what every claim may read besides its table (the
score files, the settings, the places to measure at); each other module declares the claims of one
input table (`CLAIMS`), registry.py collects them in the table's order and names the tables, and
table.py builds the claims and seed-stability tables by looping over the registry.
"""
