"""The PostgreSQL adapter: a server many processes and users share, pgvector (HNSW) for
dense search, BM25 over stored postings for full text, an advisory lock for writers."""
