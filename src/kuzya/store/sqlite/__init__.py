"""The SQLite adapter: one file per memory (WAL), its migrations, full text (FTS5) and
the exact vector index."""
