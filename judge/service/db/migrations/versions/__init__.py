"""The service database's revisions, oldest first; each names the one it follows (``down_revision``)."""
