"""Recall: query analysis, the ranking pipeline, and passages of long messages."""
