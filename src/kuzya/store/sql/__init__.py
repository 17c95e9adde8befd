"""The relational store, written once in the SQL that SQLite and PostgreSQL both speak:
episodes, audiences, entities and associations, claims, diary, jobs and transfer. Each
backend adds its connection, transactions, migrations and search (`store/sqlite/`,
`store/postgres/`)."""
