"""The assistant service: Kuzya over HTTP (`kuzya serve`), its keys and its tools."""
