"""Verifiers: IFEval instruction checks, math answer checks, joint scores."""
