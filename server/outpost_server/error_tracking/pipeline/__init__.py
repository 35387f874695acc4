"""The ingestion pipeline's running parts and figures: its stages started and stopped together
(runtime.py), and what they report on /-/metrics and the status API (metrics.py, router.py).

    collector (ingest/) ──append──> spool (ingest/spool.py, a SQLite file on local disk) ──claim──>
        digest/ (decode, scrub, symbolicate, derive, store) ──> database

The request path only authenticates, checks limits and framing, and appends the request to the
spool; it answers once the spool's group commit is on disk. Digesters (one per spool) claim batches,
store them in one transaction of the main database, and only then delete them from the spool. See the
README's "Ingestion pipeline".
"""
