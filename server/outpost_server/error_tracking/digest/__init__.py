"""The digest stage: batches claimed from the spool are decoded, scrubbed, symbolicated (through the
interface digester.py owns), derived (title, culprit, fingerprint, tags, grouping) and stored in one
transaction, then removed from the spool."""
