"""Store adapters behind the ports of `kuzya.store.base`."""

from kuzya.store.base import EpisodeStore, Hit, NewEpisode, SearchStore, Store
from kuzya.store.sqlite.store import SQLiteStore

__all__ = ["EpisodeStore", "Hit", "NewEpisode", "SQLiteStore", "SearchStore", "Store"]
