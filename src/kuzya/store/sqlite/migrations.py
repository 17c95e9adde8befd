"""SQLite schema as an ordered list of small named migrations, applied once each.

A released migration is never edited: a schema change is a new function appended to
`kuzya.store.sqlite.schema.MIGRATIONS`, so every store file ever written keeps opening.
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Callable

Migration = Callable[[sqlite3.Connection], None]


def _run(db: sqlite3.Connection, script: str) -> None:
    """Execute statements one by one (executescript would commit the open transaction)."""
    for statement in script.split(";"):
        if statement.strip():
            db.execute(statement)


def m001_initial(db: sqlite3.Connection) -> None:
    _run(
        db,
        """
        CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
        CREATE TABLE audiences (
            id INTEGER PRIMARY KEY,
            namespace TEXT NOT NULL,
            key TEXT NOT NULL,
            UNIQUE (namespace, key)
        );
        CREATE TABLE audience_members (
            audience_id INTEGER NOT NULL REFERENCES audiences (id),
            participant TEXT NOT NULL,
            PRIMARY KEY (participant, audience_id)
        ) WITHOUT ROWID;
        CREATE INDEX audience_members_by_audience ON audience_members (audience_id);
        CREATE TABLE conversations (
            namespace TEXT NOT NULL,
            id TEXT NOT NULL,
            started_at REAL NOT NULL,
            last_at REAL NOT NULL,
            messages INTEGER NOT NULL,
            participants TEXT NOT NULL,
            PRIMARY KEY (namespace, id)
        ) WITHOUT ROWID;
        CREATE TABLE episodes (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            namespace TEXT NOT NULL,
            conversation TEXT NOT NULL,
            position INTEGER NOT NULL,
            speaker TEXT NOT NULL,
            text TEXT NOT NULL,
            attachments TEXT NOT NULL,
            metadata TEXT NOT NULL,
            said_at REAL NOT NULL,
            stored_at REAL NOT NULL,
            updated_at REAL,
            audience_id INTEGER NOT NULL REFERENCES audiences (id),
            embedding BLOB NOT NULL,
            events TEXT NOT NULL,
            event_start REAL,
            event_end REAL
        );
        CREATE INDEX episodes_by_event ON episodes (namespace, event_start);
        CREATE INDEX episodes_by_time ON episodes (namespace, said_at);
        CREATE INDEX episodes_by_conversation ON episodes (namespace, conversation, position);
        CREATE VIRTUAL TABLE episodes_fts USING fts5 (
            terms, scope, tokenize = 'unicode61 remove_diacritics 0'
        );
        CREATE VIRTUAL TABLE episodes_fts_vocab USING fts5vocab (episodes_fts, 'col');
        CREATE TABLE vector_log (
            seq INTEGER PRIMARY KEY AUTOINCREMENT,
            namespace TEXT NOT NULL,
            episode_id INTEGER NOT NULL,
            op TEXT NOT NULL CHECK (op IN ('put', 'remove'))
        );
        CREATE TABLE history (
            id INTEGER PRIMARY KEY,
            namespace TEXT NOT NULL,
            memory_id INTEGER NOT NULL,
            event TEXT NOT NULL,
            old_text TEXT,
            new_text TEXT,
            at REAL NOT NULL,
            actor TEXT
        );
        CREATE INDEX history_by_memory ON history (namespace, memory_id);
        """,
    )


def m002_entities(db: sqlite3.Connection) -> None:
    _run(
        db,
        """
        CREATE TABLE entities (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            namespace TEXT NOT NULL,
            key TEXT NOT NULL,
            sense INTEGER NOT NULL,
            name TEXT NOT NULL,
            kind TEXT NOT NULL,
            mentions INTEGER NOT NULL,
            first_seen REAL NOT NULL,
            last_seen REAL NOT NULL,
            UNIQUE (namespace, key, sense)
        );
        CREATE TABLE entity_aliases (
            namespace TEXT NOT NULL,
            speaker TEXT NOT NULL,
            alias TEXT NOT NULL,
            entity_id INTEGER NOT NULL REFERENCES entities (id),
            PRIMARY KEY (namespace, speaker, alias)
        ) WITHOUT ROWID;
        CREATE TABLE mentions (
            entity_id INTEGER NOT NULL,
            episode_id INTEGER NOT NULL,
            PRIMARY KEY (entity_id, episode_id)
        ) WITHOUT ROWID;
        CREATE INDEX mentions_by_episode ON mentions (episode_id);
        CREATE TABLE associations (
            namespace TEXT NOT NULL,
            audience_id INTEGER NOT NULL,
            a INTEGER NOT NULL,
            b INTEGER NOT NULL,
            weight REAL NOT NULL,
            updated_at REAL NOT NULL,
            PRIMARY KEY (namespace, audience_id, a, b)
        ) WITHOUT ROWID;
        CREATE INDEX associations_by_a ON associations (namespace, a);
        CREATE INDEX associations_by_b ON associations (namespace, b);
        CREATE TABLE entity_history (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            namespace TEXT NOT NULL,
            event TEXT NOT NULL,
            entity_id INTEGER NOT NULL,
            detail TEXT NOT NULL,
            at REAL NOT NULL
        )
        """,
    )


def m003_facts_diary_jobs(db: sqlite3.Connection) -> None:
    _run(
        db,
        """
        CREATE TABLE facts (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            namespace TEXT NOT NULL,
            subject TEXT NOT NULL,
            attribute TEXT NOT NULL,
            value TEXT NOT NULL,
            value_key TEXT NOT NULL,
            statement TEXT NOT NULL,
            category TEXT NOT NULL,
            priority INTEGER NOT NULL,
            audience_id INTEGER NOT NULL REFERENCES audiences (id),
            valid_from REAL NOT NULL,
            valid_to REAL,
            recorded_at REAL NOT NULL,
            retired_at REAL,
            origin TEXT NOT NULL,
            embedding BLOB NOT NULL,
            own_embedding BLOB NOT NULL
        );
        CREATE INDEX facts_by_subject ON facts (namespace, subject, attribute);
        CREATE INDEX facts_by_audience ON facts (namespace, audience_id);
        CREATE TABLE fact_sources (
            fact_id INTEGER NOT NULL REFERENCES facts (id),
            episode_id INTEGER NOT NULL,
            PRIMARY KEY (fact_id, episode_id)
        ) WITHOUT ROWID;
        CREATE INDEX fact_sources_by_episode ON fact_sources (episode_id);
        CREATE TABLE fact_history (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            namespace TEXT NOT NULL,
            fact_id INTEGER NOT NULL,
            event TEXT NOT NULL,
            detail TEXT NOT NULL,
            at REAL NOT NULL,
            actor TEXT
        );
        CREATE INDEX fact_history_by_fact ON fact_history (namespace, fact_id);
        CREATE TABLE diary (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            namespace TEXT NOT NULL,
            kind TEXT NOT NULL,
            key TEXT NOT NULL,
            level INTEGER NOT NULL,
            text TEXT NOT NULL,
            start REAL NOT NULL,
            end REAL NOT NULL,
            audience_id INTEGER NOT NULL REFERENCES audiences (id),
            sources TEXT NOT NULL,
            origin TEXT NOT NULL,
            created_at REAL NOT NULL,
            embedding BLOB NOT NULL,
            compressed_into INTEGER,
            UNIQUE (namespace, kind, key, level, audience_id)
        );
        CREATE INDEX diary_by_time ON diary (namespace, start);
        CREATE TABLE job_cursors (
            namespace TEXT NOT NULL,
            job TEXT NOT NULL,
            position INTEGER NOT NULL,
            PRIMARY KEY (namespace, job)
        ) WITHOUT ROWID
        """,
    )


def m004_claims(db: sqlite3.Connection) -> None:
    """Facts become a view: each episode's claims are stored with the episode's audience,
    and the facts a set of people sees are folded from the claims they may see. Facts are
    copied over as claims of their sources, and a negation that ended one ("no longer
    true, said in memory 12") as a negated claim of that memory. Assistant replies keep
    the memories they were made from (derivations), and history rows the audience of
    their memory."""
    _run(
        db,
        """
        CREATE TABLE claims (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            namespace TEXT NOT NULL,
            episode_id INTEGER NOT NULL,
            subject TEXT NOT NULL,
            attribute TEXT NOT NULL,
            value TEXT NOT NULL,
            value_key TEXT NOT NULL,
            negated INTEGER NOT NULL,
            statement TEXT NOT NULL,
            said_at REAL NOT NULL,
            audience_id INTEGER NOT NULL REFERENCES audiences (id),
            origin TEXT NOT NULL,
            recorded_at REAL NOT NULL,
            embedding BLOB NOT NULL,
            own_embedding BLOB NOT NULL,
            UNIQUE (episode_id, subject, attribute, value_key, negated)
        );
        CREATE INDEX claims_by_audience ON claims (namespace, audience_id);
        CREATE TABLE forgotten_facts (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            namespace TEXT NOT NULL,
            claim_id INTEGER NOT NULL,
            attribute TEXT NOT NULL,
            audience_id INTEGER NOT NULL,
            reason TEXT NOT NULL,
            at REAL NOT NULL,
            actor TEXT
        );
        CREATE INDEX forgotten_facts_by_claim ON forgotten_facts (namespace, claim_id);
        CREATE TABLE versions (
            namespace TEXT NOT NULL,
            name TEXT NOT NULL,
            value INTEGER NOT NULL,
            PRIMARY KEY (namespace, name)
        ) WITHOUT ROWID;
        CREATE TABLE derivations (
            episode_id INTEGER NOT NULL,
            source_id INTEGER NOT NULL,
            PRIMARY KEY (source_id, episode_id)
        ) WITHOUT ROWID;
        CREATE INDEX derivations_by_episode ON derivations (episode_id);
        ALTER TABLE history ADD COLUMN audience_id INTEGER;
        UPDATE history SET audience_id = (SELECT e.audience_id FROM episodes e
            WHERE e.id = history.memory_id AND e.namespace = history.namespace);
        INSERT OR IGNORE INTO claims (namespace, episode_id, subject, attribute, value,
            value_key, negated, statement, said_at, audience_id, origin, recorded_at,
            embedding, own_embedding)
            SELECT f.namespace, e.id, f.subject, f.attribute, f.value, f.value_key, 0,
                f.statement, e.said_at, e.audience_id, f.origin, f.recorded_at, f.embedding,
                f.own_embedding
            FROM facts f JOIN fact_sources s ON s.fact_id = f.id
            JOIN episodes e ON e.id = s.episode_id AND e.namespace = f.namespace
            WHERE f.retired_at IS NULL
        """,
    )
    negations = db.execute(
        "SELECT f.id, h.detail FROM fact_history h JOIN facts f ON f.id = h.fact_id "
        "WHERE h.event = 'CLOSE' AND f.retired_at IS NULL AND h.detail LIKE 'no longer true%'"
    ).fetchall()
    for fact_id, detail in negations:
        said_in = re.search(r"memory (\d+)", detail)
        if said_in is not None:
            db.execute(
                "INSERT OR IGNORE INTO claims (namespace, episode_id, subject, attribute, value, "
                "value_key, negated, statement, said_at, audience_id, origin, recorded_at, "
                "embedding, own_embedding) SELECT f.namespace, e.id, f.subject, f.attribute, "
                "f.value, f.value_key, 1, 'no longer: ' || f.statement, e.said_at, "
                "e.audience_id, f.origin, f.recorded_at, f.embedding, f.own_embedding "
                "FROM facts f JOIN episodes e ON e.id = ? AND e.namespace = f.namespace "
                "WHERE f.id = ?",
                (int(said_in.group(1)), fact_id),
            )
    _run(db, "DROP TABLE fact_history; DROP TABLE fact_sources; DROP TABLE facts")


def m005_entity_views(db: sqlite3.Connection) -> None:
    """Entity rows carry the audience they were learned in, so each view is computed
    from what its viewers may see: mentions get their episode's audience, their order
    in the text and the name and kind as written there; counts are kept per (audience,
    entity); an alias names the audience and episode that taught it (0: a merge made
    before, kept while the entity is);
    reinforcements are logged to be undone with their episodes. Written names, kinds and
    counts leave the entities table (an entity is its key and sense). A merge recorded
    before cannot be undone by its id any more (split the entity instead)."""
    _run(
        db,
        """
        ALTER TABLE mentions ADD COLUMN audience_id INTEGER NOT NULL DEFAULT 0;
        ALTER TABLE mentions ADD COLUMN rank INTEGER NOT NULL DEFAULT 0;
        ALTER TABLE mentions ADD COLUMN name TEXT NOT NULL DEFAULT '';
        ALTER TABLE mentions ADD COLUMN kind TEXT NOT NULL DEFAULT 'name';
        UPDATE mentions SET
            audience_id = COALESCE((SELECT audience_id FROM episodes WHERE id = episode_id), 0),
            name = (SELECT name FROM entities WHERE id = entity_id),
            kind = (SELECT kind FROM entities WHERE id = entity_id);
        CREATE TABLE entity_counts (
            audience_id INTEGER NOT NULL,
            entity_id INTEGER NOT NULL,
            mentions INTEGER NOT NULL,
            PRIMARY KEY (audience_id, entity_id)
        ) WITHOUT ROWID;
        CREATE INDEX entity_counts_by_entity ON entity_counts (entity_id);
        INSERT INTO entity_counts
            SELECT audience_id, entity_id, COUNT(*) FROM mentions GROUP BY 1, 2;
        ALTER TABLE entity_aliases RENAME TO entity_aliases_m002;
        CREATE TABLE entity_aliases (
            namespace TEXT NOT NULL,
            speaker TEXT NOT NULL,
            alias TEXT NOT NULL,
            audience_id INTEGER NOT NULL,
            episode_id INTEGER NOT NULL,
            entity_id INTEGER NOT NULL REFERENCES entities (id),
            PRIMARY KEY (namespace, speaker, alias, audience_id, episode_id)
        ) WITHOUT ROWID;
        CREATE INDEX entity_aliases_by_entity ON entity_aliases (entity_id);
        CREATE INDEX entity_aliases_by_episode ON entity_aliases (episode_id);
        INSERT INTO entity_aliases
            SELECT a.namespace, a.speaker, a.alias, m.audience_id, m.episode_id, a.entity_id
            FROM entity_aliases_m002 a JOIN mentions m ON m.entity_id = a.entity_id
            WHERE a.speaker != '' AND m.episode_id = (
                SELECT MAX(x.episode_id) FROM mentions x JOIN episodes e ON e.id = x.episode_id
                WHERE x.entity_id = a.entity_id AND e.speaker = a.speaker);
        INSERT INTO entity_aliases
            SELECT DISTINCT a.namespace, '', a.alias, c.audience_id, 0, a.entity_id
            FROM entity_aliases_m002 a JOIN entities e ON e.id = a.entity_id
            JOIN entity_counts c ON c.entity_id = a.entity_id
            WHERE a.speaker = '' AND a.alias != e.key;
        DROP TABLE entity_aliases_m002;
        CREATE TABLE reinforcements (
            id INTEGER PRIMARY KEY,
            namespace TEXT NOT NULL,
            audience_id INTEGER NOT NULL,
            entities TEXT NOT NULL,
            amount REAL NOT NULL,
            at REAL NOT NULL
        );
        CREATE TABLE reinforcement_sources (
            episode_id INTEGER NOT NULL,
            reinforcement_id INTEGER NOT NULL REFERENCES reinforcements (id),
            PRIMARY KEY (episode_id, reinforcement_id)
        ) WITHOUT ROWID;
        CREATE INDEX reinforcement_sources_by_reinforcement
            ON reinforcement_sources (reinforcement_id);
        UPDATE entity_history SET event = 'MERGE-BEFORE-VIEWS' WHERE event = 'MERGE';
        ALTER TABLE entities DROP COLUMN name;
        ALTER TABLE entities DROP COLUMN kind;
        ALTER TABLE entities DROP COLUMN mentions;
        ALTER TABLE entities DROP COLUMN first_seen;
        ALTER TABLE entities DROP COLUMN last_seen
        """,
    )


def m006_claim_emphasis(db: sqlite3.Connection) -> None:
    """Claims say whether they were stated as a habit ("I always order ramen")."""
    _run(db, "ALTER TABLE claims ADD COLUMN emphatic INTEGER NOT NULL DEFAULT 0")


def m007_sleep_clock(db: sqlite3.Connection) -> None:
    """The time each namespace's latest sleep ran at: sleep's time moves forward only."""
    _run(
        db,
        "CREATE TABLE sleep_clock (namespace TEXT PRIMARY KEY, now REAL NOT NULL) WITHOUT ROWID",
    )


def m008_message_keys(db: sqlite3.Connection) -> None:
    """A message may carry a stable key (an import's line id or a hash of it): a key
    already in the namespace is not stored twice."""
    _run(
        db,
        """
        ALTER TABLE episodes ADD COLUMN key TEXT;
        CREATE UNIQUE INDEX episodes_by_key ON episodes (namespace, key) WHERE key IS NOT NULL
        """,
    )


def m009_leases(db: sqlite3.Connection) -> None:
    """Work one process at a time per namespace (sleep): who holds it, until when."""
    _run(
        db,
        """
        CREATE TABLE leases (
            namespace TEXT NOT NULL,
            name TEXT NOT NULL,
            holder TEXT NOT NULL,
            host TEXT NOT NULL,
            pid INTEGER NOT NULL,
            expires_at REAL NOT NULL,
            PRIMARY KEY (namespace, name)
        ) WITHOUT ROWID
        """,
    )


def m010_latest_by_audience(db: sqlite3.Connection) -> None:
    """The latest messages, and the latest mentions of an entity, of one audience are read
    from an index instead of by walking the namespace's newest rows until enough are its."""
    _run(
        db,
        """
        CREATE INDEX episodes_by_audience_time ON episodes (audience_id, said_at);
        CREATE INDEX mentions_by_audience ON mentions (entity_id, audience_id, episode_id)
        """,
    )


def m011_diary_sources(db: sqlite3.Connection) -> None:
    """The messages a diary entry summarises are rows, not only its JSON list: found by
    an index, in SQL every backend speaks."""
    _run(
        db,
        """
        CREATE TABLE diary_sources (
            diary_id INTEGER NOT NULL REFERENCES diary (id) ON DELETE CASCADE,
            episode_id INTEGER NOT NULL,
            PRIMARY KEY (diary_id, episode_id)
        ) WITHOUT ROWID;
        CREATE INDEX diary_sources_by_episode ON diary_sources (episode_id);
        INSERT INTO diary_sources SELECT DISTINCT d.id, s.value FROM diary d, json_each(d.sources) s
        """,
    )


def m012_api_keys(db: sqlite3.Connection) -> None:
    """Keys of the service (`kuzya keys`): a digest per key, bound to a namespace."""
    _run(
        db,
        """
        CREATE TABLE api_keys (
            id INTEGER PRIMARY KEY,
            namespace TEXT NOT NULL,
            user_id TEXT,
            name TEXT NOT NULL,
            digest TEXT NOT NULL UNIQUE,
            created_at REAL NOT NULL,
            revoked_at REAL
        )
        """,
    )


MIGRATIONS: list[Migration] = [
    m001_initial,
    m002_entities,
    m003_facts_diary_jobs,
    m004_claims,
    m005_entity_views,
    m006_claim_emphasis,
    m007_sleep_clock,
    m008_message_keys,
    m009_leases,
    m010_latest_by_audience,
    m011_diary_sources,
    m012_api_keys,
]
