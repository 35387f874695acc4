"""Keeping storage bounded: the retention limits, the pruner's pass across replicas, PostgreSQL's day
partitions (made ahead, dropped whole when expired) and each project's storage use."""
