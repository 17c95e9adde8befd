"""Exceptions: one root, a caller's mistake told apart from a backend failure."""


class KuzyaError(Exception):
    """Root of every error Kuzya raises on purpose."""


class InvalidInput(KuzyaError, ValueError):
    """The caller passed something Kuzya cannot accept; nothing was written."""


class NotFound(KuzyaError, LookupError):
    """No memory with that id in this namespace (or it is not visible to the caller)."""


class StoreError(KuzyaError):
    """The storage backend failed (disk, lock timeout, corrupt file)."""


class EmbedderError(KuzyaError):
    """The embedding model could not be loaded or failed to encode."""


class LLMError(KuzyaError):
    """The language model could not be reached, or kept answering with unusable output."""


class NERError(KuzyaError):
    """The named-entity models are not installed or could not be loaded."""
