"""Entities: name mentions, aliases and senses, merge and split, recognisers (NER)."""
