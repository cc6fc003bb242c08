"""Scoring: run adapters over questions, compute the metrics, judge answers, render the one table."""
