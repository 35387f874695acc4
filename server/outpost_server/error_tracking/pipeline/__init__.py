"""The ingestion pipeline: accept into a durable local queue, then digest in batches.

    collector (accept.py) ──append──> spool (spool.py, a SQLite file on local disk) ──claim──> digest.py ──> database

The request path only authenticates, checks limits and framing, and appends the request to the
spool; it answers once the spool's group commit is on disk. Digesters (one thread per server
process) claim batches, decode, normalize, scrub and store them in one transaction of the main
database, and only then delete them from the spool. See the README's "Ingestion pipeline".
"""
