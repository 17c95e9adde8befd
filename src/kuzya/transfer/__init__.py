"""Moving memories: a whole namespace exported to JSONL and back, and the chat files
Kuzya imports."""
